import { type Numerics, numericsOf } from "./numerics.js";
import { type Problem, type ProblemStats, problemStats } from "./schema.js";

/**
 * A problem built off the API's event loop (a JModel compile, a file read in the model thread), handed
 * back as its stats, its coefficient ranges and its JSON as UTF-8 bytes: bytes move between threads without a copy, where the
 * problem's objects would be cloned on the receiving thread (seconds for 100,000 variables). The
 * admission reads the stats and stores the bytes as they are; nothing on the event loop parses them.
 */
export interface SerializedProblem {
  kind: "serialized";
  name: string;
  stats: ProblemStats;
  numerics: Numerics;
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
    json: new TextEncoder().encode(JSON.stringify(problem)),
  };
}

/** The problem's objects again (tests, and callers that need them and run off the event loop). */
export function deserializeProblem(serialized: SerializedProblem): Problem {
  return JSON.parse(new TextDecoder().decode(serialized.json)) as Problem;
}

/** The coefficient ranges of a problem in hand or built elsewhere (computed where it was built). */
export const numericsOfAny = (problem: Problem | SerializedProblem): Numerics => (isSerializedProblem(problem) ? problem.numerics : numericsOf(problem));
