import { z } from "zod";
import { PROBLEM_CLASSES } from "../../problem/schema.js";
import table from "./public-benchmark.json" with { type: "json" };
import type { Observation } from "./observations.js";

/**
 * The public benchmark observations shipped with the service: what `auto` judges by where an
 * organization has no similar comparisons of its own. The table is written by `npm run bench -- auto
 * --write` (test/bench/auto.ts) from a real run over the scale set, never by hand; its header says when
 * and how it was measured.
 */
const FeaturesSchema = z.object({
  problem_class: z.enum(PROBLEM_CLASSES),
  log_variables: z.number(),
  log_constraints: z.number(),
  log_nonzeros: z.number().nullable(),
  integer_share: z.number().nullable(),
  matrix_range_decades: z.number().nullable(),
  objective_range_decades: z.number().nullable(),
  set_share: z.number().nullable().optional(),
  knapsack_share: z.number().nullable().optional(),
  variable_bound_share: z.number().nullable().optional(),
  equality_share: z.number().nullable().optional(),
});

export const PublicBenchmarkSchema = z.object({
  generated_by: z.string(),
  measured_at: z.string().nullable(),
  machine_note: z.string(),
  observations: z.array(
    z.object({
      id: z.string(),
      features: FeaturesSchema,
      runs: z.array(z.object({ solver: z.string(), seconds: z.number(), solved: z.boolean(), time_limit_seconds: z.number() })),
    }),
  ),
});
export type PublicBenchmark = z.infer<typeof PublicBenchmarkSchema>;

export const PUBLIC_OBSERVATIONS: readonly Observation[] = PublicBenchmarkSchema.parse(table).observations.map((o) => ({ ...o, source: "public" as const }));
