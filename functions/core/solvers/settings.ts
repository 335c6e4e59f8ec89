import { z } from "zod";
import { clampTimeLimit, type Config } from "../config.js";
import { BasisSchema, type SolveSettings } from "./types.js";
import { SCHEMA_NAMES } from "../schema-names.js";

/** The longest a solve may run whatever is asked: one day (job leases, the sweeper and queue visibility are sized below it). */
export const MAX_TIME_LIMIT_SECONDS = 86_400;

/** The largest solution pool a request may ask for. */
export const MAX_SOLUTION_POOL_SIZE = 20;

/**
 * The most entries a MIP start may have whatever the instance allows: a start is stored with its
 * execution's settings, so it is bounded like the model it belongs to (and by the instance's variable
 * cap, and by the problem's own variables: solve-admission.ts, warm-start.ts).
 */
export const MAX_INITIAL_SOLUTION_ENTRIES = 100_000;

export const InitialSolutionSchema = z
  .record(z.string().min(1).max(255), z.number().finite())
  .refine((start) => Object.keys(start).length <= MAX_INITIAL_SOLUTION_ENTRIES, {
    message: `at most ${MAX_INITIAL_SOLUTION_ENTRIES} values`,
  });

export const InitialBasisSchema = BasisSchema.refine(
  (basis) => Object.keys(basis.columns).length + Object.keys(basis.rows).length <= 2 * MAX_INITIAL_SOLUTION_ENTRIES,
  { message: `at most ${2 * MAX_INITIAL_SOLUTION_ENTRIES} statuses` },
);

/** Settings a request may give. `threads` is not among them: the platform sets it, and reports it. */
export const SettingsRequestSchema = z
  .object({
    time_limit_seconds: z
      .number()
      .positive()
      .optional()
      .describe(`default 60; clamped, never refused: to the instance ceiling (INSTANCE_MAX_SOLVE_TIME_SECONDS) and to ${MAX_TIME_LIMIT_SECONDS} s`),
    gap_tolerance: z.number().min(0).max(1).optional().describe("relative MIP gap; default 0.0001"),
    solution_pool_size: z
      .number()
      .int()
      .min(1)
      .max(MAX_SOLUTION_POOL_SIZE)
      .optional()
      .describe(
        'default 1; above 1 the result also carries `solutions`, up to this many distinct feasible ones, best first (or `solution_pool: "unsupported"` from a solver that cannot give them)',
      ),
    ranging: z
      .boolean()
      .optional()
      .describe('default false; an LP solved to optimality then carries `ranging` (HiGHS); other solvers answer `ranging: "unsupported"`'),
    explain_infeasibility: z
      .boolean()
      .optional()
      .describe(
        "default false; an `infeasible` result then carries `infeasibility`: a conflicting subset of constraints and bounds (the solver's own IIS from HiGHS on LPs and from SCIP, else a deletion filter), searched within one more time limit",
      ),
    initial_basis: InitialBasisSchema.optional().describe(
      "an LP's starting basis by variable and constraint name, as an earlier result's `basis` gives it (names must be the problem's; a name left out starts nonbasic at a bound, a row left out basic). Native HiGHS takes it; the others, and MILPs, ignore it with a note in `warm_start`",
    ),
    initial_solution: InitialSolutionSchema.optional().describe(
      "a MIP start, variable name → value (names must be the problem's; may leave variables out). Checked against the model; given to native HiGHS, SCIP and CBC, ignored with a note by the others and on LPs. The result's `warm_start` says whether the solver took it",
    ),
  })
  .strict();
SCHEMA_NAMES.add(SettingsRequestSchema, { id: "SettingsRequest" });
export type SettingsRequest = z.infer<typeof SettingsRequestSchema>;

export const SettingsSchema = z.object({
  time_limit_seconds: z.number(),
  gap_tolerance: z.number(),
  threads: z.number().int(),
  solution_pool_size: z.number().int().optional().describe("absent on records from before pools: 1"),
  ranging: z.boolean().optional().describe("absent: false"),
  explain_infeasibility: z.boolean().optional().describe("absent: false"),
  initial_solution: z.record(z.string(), z.number()).optional().describe("the MIP start asked for; absent: none"),
  initial_basis: BasisSchema.optional().describe("the starting basis asked for; absent: none"),
});
SCHEMA_NAMES.add(SettingsSchema, { id: "Settings" });
export type Settings = z.infer<typeof SettingsSchema>;

/** Defaults, then the ceilings (clamped, never refused, as the spec says), then the platform's thread count. */
export function resolveSettings(
  config: Pick<Config, "instanceMaxSolveTimeSeconds" | "defaultTimeLimitSeconds" | "defaultGapTolerance" | "solverThreads">,
  requested: SettingsRequest | undefined,
): Settings {
  return {
    time_limit_seconds: Math.min(MAX_TIME_LIMIT_SECONDS, clampTimeLimit(config, requested?.time_limit_seconds ?? config.defaultTimeLimitSeconds)),
    gap_tolerance: requested?.gap_tolerance ?? config.defaultGapTolerance,
    threads: config.solverThreads,
    ...(requested?.solution_pool_size && requested.solution_pool_size > 1 ? { solution_pool_size: requested.solution_pool_size } : {}),
    ...(requested?.ranging ? { ranging: true } : {}),
    ...(requested?.explain_infeasibility ? { explain_infeasibility: true } : {}),
    ...(requested?.initial_solution ? { initial_solution: requested.initial_solution } : {}),
    ...(requested?.initial_basis ? { initial_basis: requested.initial_basis } : {}),
  };
}

export const toSolveSettings = (s: Settings): SolveSettings => ({
  timeLimitSeconds: s.time_limit_seconds,
  gapTolerance: s.gap_tolerance,
  threads: s.threads,
  solutionPoolSize: s.solution_pool_size ?? 1,
  ranging: s.ranging ?? false,
  explainInfeasibility: s.explain_infeasibility ?? false,
  ...(s.initial_solution ? { initialSolution: s.initial_solution } : {}),
  ...(s.initial_basis ? { initialBasis: s.initial_basis } : {}),
});
