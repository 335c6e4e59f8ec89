import { type Numerics, numericsOf } from "./numerics.js";
import { type Problem, type ProblemStats, problemStats } from "./schema.js";
import { type StructureCounts, structureCountsOf } from "../solvers/recommendation/structure.js";

/**
 * A problem built off the API's event loop (a JModel compile, a file read in the model thread), handed
 * back as its stats, its coefficient ranges, its structure counts and its JSON as UTF-8 bytes: bytes move between threads without a copy, where the
 * problem's objects would be cloned on the receiving thread (seconds for 100,000 variables). The
 * admission reads the stats and stores the bytes as they are; nothing on the event loop parses them.
 */
export interface SerializedProblem {
  kind: "serialized";
  name: string;
  stats: ProblemStats;
  numerics: Numerics;
  /**
   * The rows by kind (solvers/recommendation/structure.ts), counted in the thread that built it (one linear
   * pass), so that `auto` and the comparison records have them without parsing the bytes here.
   */
  structure: StructureCounts;
  json: Uint8Array;
}

export const isSerializedProblem = (value: Problem | SerializedProblem): value is SerializedProblem => (value as SerializedProblem).kind === "serialized";

/** A problem in hand, serialized (in the thread that built it). */
export function serializeProblem(problem: Problem): SerializedProblem {
  return {
    kind: "serialized",
    name: problem.name,
    stats: problemStats(problem),
    numerics: numericsOf(problem),
    structure: structureCountsOf(problem),
    json: new TextEncoder().encode(JSON.stringify(problem)),
  };
}

/** The problem's objects again (tests, and callers that need them and run off the event loop). */
export function deserializeProblem(serialized: SerializedProblem): Problem {
  return JSON.parse(new TextDecoder().decode(serialized.json)) as Problem;
}

/** The coefficient ranges of a problem in hand or built elsewhere (computed where it was built). */
export const numericsOfAny = (problem: Problem | SerializedProblem): Numerics => (isSerializedProblem(problem) ? problem.numerics : numericsOf(problem));

/** The structure counts of a problem in hand or built elsewhere (counted where it was built). */
export const structureCountsOfAny = (problem: Problem | SerializedProblem): StructureCounts =>
  isSerializedProblem(problem) ? problem.structure : structureCountsOf(problem);
