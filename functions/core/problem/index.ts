import type { ModelCaps } from "../limits/model-caps.js";
import { readLp } from "./lp.js";
import { readMps } from "./mps.js";
import type { ProblemFileFormat } from "./parse-error.js";
import type { Problem } from "./schema.js";

export { readLp, writeLp, type WriteLpOptions } from "./lp.js";
export { readMps, writeMps, type MpsFormat, type ReadMpsOptions } from "./mps.js";
export { ProblemParseError, isProblemParseError, type ProblemFileFormat } from "./parse-error.js";
export { originalObjective, type WriteProblemOptions, type WrittenProblem } from "./write-common.js";

/**
 * Reads a problem file for import preview. With "auto" the format comes from the file name's last
 * extension (.mps, .lp), else from the content: an MPS file's first card is NAME, ROWS or OBJSENSE;
 * an LP file starts with its objective sense (Minimize, Maximize, …) after `\` comments.
 */
/** `format` "auto" tells LP from MPS by `filename`, else by the text. */
export function readProblemFile(
  text: string,
  { format, filename, caps }: { format: ProblemFileFormat | "auto"; filename?: string; caps?: ModelCaps },
): Problem {
  const chosen = format === "auto" ? detectFormat(text, filename) : format;
  return chosen === "lp" ? readLp(text, { caps }) : readMps(text, { caps });
}

export function detectFormat(text: string, filename?: string): ProblemFileFormat {
  const extension = filename?.toLowerCase().match(/\.([a-z]+)$/)?.[1];
  if (extension === "mps" || extension === "fmps" || extension === "freemps") return "mps";
  if (extension === "lp") return "lp";
  for (const raw of text.split("\n", 200)) {
    const line = raw.trim();
    if (line.length === 0 || line.startsWith("*") || line.startsWith("\\")) continue;
    const word = line.split(/\s+/, 1)[0]!.toUpperCase();
    if (["NAME", "ROWS", "OBJSENSE", "OBJSENCE"].includes(word)) return "mps";
    if (/^(MIN|MAX)(IMI[SZ]E|IMUM)?$/.test(word)) return "lp";
    // Anything else first (a constraint, a comment style we do not know): LP is the freer format.
    return "lp";
  }
  return "mps";
}
