import type { Numerics } from "../../problem/numerics.js";
import { type Problem, type ProblemStats, problemStats } from "../../problem/schema.js";
import { isSerializedProblem, numericsOfAny, type SerializedProblem } from "../../problem/serialized.js";
import { featuresOf, type ProblemFeatures, type ProblemSizes, sizesOfStats } from "./features.js";
import { type Tuning, usesStructure } from "./recommender.js";
import { structureCountsOf } from "./structure.js";

/** What `auto` knows of the problem it is about to solve: its sizes (with structure counts, when used) and its numerics. */
export interface ProblemInHand {
  sizes: ProblemSizes;
  numerics: Numerics;
}

/**
 * The problem a solve is admitted with, described as the bench and the comparison records describe theirs
 * (features.ts): sizes, integer share, coefficient ranges and, when the recommender reads them, structure
 * counts. Linear in the problem: a problem built off the event loop (problem/serialized.ts) brings its
 * stats, numerics and structure counts with it and is not parsed here; a problem in hand is read once
 * for its numerics and, only when the structure shares count, once for its rows. `stats`: when the caller
 * has them (the admission has).
 */
export function describeProblem(problem: Problem | SerializedProblem, stats?: ProblemStats, tuning?: Tuning): ProblemInHand {
  const serialized = isSerializedProblem(problem) ? problem : null;
  const known = stats ?? (serialized ? serialized.stats : problemStats(problem as Problem));
  const structure = !usesStructure(tuning) ? null : serialized ? (serialized.structure ?? null) : structureCountsOf(problem as Problem);
  return { sizes: { ...sizesOfStats(known), structure }, numerics: numericsOfAny(problem) };
}

/** The features `auto` chooses by for a problem: those of describeProblem. */
export function featuresOfProblem(problem: Problem | SerializedProblem, stats?: ProblemStats, tuning?: Tuning): ProblemFeatures {
  const { sizes, numerics } = describeProblem(problem, stats, tuning);
  return featuresOf(sizes, numerics);
}
