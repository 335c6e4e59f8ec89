import { CapCounter, type ModelCaps } from "../limits/model-caps.js";
import { MpsReader, type MpsFormat } from "./mps-reader.js";
import { ProblemParseError } from "./parse-error.js";
import type { Problem } from "./schema.js";

export { writeMps } from "./mps-writer.js";
export type { MpsFormat } from "./mps-reader.js";

export interface ReadMpsOptions {
  /** "auto" (default) reads free MPS and falls back to fixed if that fails. */
  format?: "auto" | MpsFormat;
  /** The instance's size caps: reading stops with ModelCapExceeded the moment one would pass. */
  caps?: ModelCaps;
}

/**
 * Reads an MPS file (fixed or free) into the canonical problem; conventions in mps-reader.ts.
 * Throws ProblemParseError naming the line.
 *
 * Auto-detection: free format first, as HiGHS does. A fixed file that free reading would misread
 * has names with spaces, and those always break free reading (a row name splits into two words, a
 * number lands where a name belongs), so the fixed reading is then tried. If both fail, the error
 * of the reading that got further is the one reported.
 */
export function readMps(text: string, options: ReadMpsOptions = {}): Problem {
  const format = options.format ?? "auto";
  const counter = () => new CapCounter(options.caps);
  if (format !== "auto") return new MpsReader(text, format, counter()).read();
  try {
    return new MpsReader(text, "free", counter()).read();
  } catch (freeError) {
    if (!(freeError instanceof ProblemParseError)) throw freeError;
    try {
      return new MpsReader(text, "fixed", counter()).read();
    } catch (fixedError) {
      if (!(fixedError instanceof ProblemParseError)) throw fixedError;
      throw fixedError.line > freeError.line ? fixedError : freeError;
    }
  }
}
