import { CapCounter, type ModelCaps } from "../limits/model-caps.js";
import { LpReader } from "./lp-reader.js";
import type { Problem } from "./schema.js";

export { writeLp, type WriteLpOptions } from "./lp-writer.js";

/** Reads a CPLEX LP file into the canonical problem; conventions in lp-reader.ts. Throws ProblemParseError naming the line. */
export function readLp(text: string, options: { caps?: ModelCaps } = {}): Problem {
  return new LpReader(text, new CapCounter(options.caps)).read();
}
