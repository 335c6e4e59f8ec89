import { LpReader } from "./lp-reader.js";
import type { Problem } from "./schema.js";

export { writeLp, type WriteLpOptions } from "./lp-writer.js";

/** Reads a CPLEX LP file into the canonical problem; conventions in lp-reader.ts. Throws ProblemParseError naming the line. */
export function readLp(text: string): Problem {
  return new LpReader(text).read();
}
