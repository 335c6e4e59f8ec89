import { z } from "zod";
import { SolverStatusSchema } from "./types.js";
import { SCHEMA_NAMES } from "../schema-names.js";

/**
 * The tolerances of the verification gate, stated once and the same for every solver
 * (docs/decisions.md, "The verification gate"). With size = max(1, …) as below, a point passes when
 * - each finite bound b of a variable holds within FEASIBILITY_TOLERANCE · max(1, |b|);
 * - each row side b holds within FEASIBILITY_TOLERANCE · max(1, Σ_{continuous j} |a_ij·x_j|) plus a
 *   floating-point allowance of 1e-12 · (Σ_j |a_ij·x_j| + |b|), with the integer variables at their
 *   integers: the row's continuous size, so a row of big continuous terms is judged relatively, a row of
 *   small ones absolutely, and the big coefficients of integer columns (exact at integers) buy no room — a
 *   big-M row `x − M·y ≥ L − M` at y = 1 needs x ≥ L − 1e-6, not L − 1e-6·M;
 * - each integer or binary variable is within INTEGRALITY_TOLERANCE of an integer, and the point with
 *   those variables rounded to their integers still passes the bounds and rows (a big-M "trickle",
 *   `x − 1e7·y ≤ 0` holding only because y = 3e-7, does not);
 * - the solver's objective value is within OBJECTIVE_TOLERANCE · max(1, |constant| + Σ_j |c_j·x_j| +
 *   Σ |q·x_a·x_b|) of the objective recomputed from its point.
 */
export const FEASIBILITY_TOLERANCE = 1e-6;
export const INTEGRALITY_TOLERANCE = 1e-6;
export const OBJECTIVE_TOLERANCE = 1e-6;

export const VERIFICATION_STATUSES = ["verified", "violated", "not_checked"] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

export const VIOLATION_KINDS = ["constraint", "bound", "integrality", "objective", "value"] as const;
export type ViolationKindName = (typeof VIOLATION_KINDS)[number];

export const ViolationPlaceSchema = z.object({
  kind: z
    .enum(VIOLATION_KINDS)
    .describe(
      "constraint: a row; bound: a variable's bound; integrality: an integer variable's value; objective: the solver's objective against the recomputed one; value: a variable without a finite value, or a name the problem lacks",
    ),
  name: z.string().describe("the row's or variable's name as submitted (`objective` for the objective)"),
  family: z.string().optional().describe("JModel models: the family the flat name was generated from"),
  index: z
    .array(z.union([z.string(), z.number()]))
    .optional()
    .describe("JModel models: the index tuple within the family"),
});
export type ViolationPlace = z.infer<typeof ViolationPlaceSchema>;

export const VerificationSchema = z
  .object({
    status: z
      .enum(VERIFICATION_STATUSES)
      .describe(
        "verified: the reported point satisfies the model as submitted; violated: it breaks it (or another solver's verified point refutes the verdict), and `status` is then `error`; not_checked: there is no point to check (infeasible, unbounded, error, or a time limit without a point)",
      ),
    max_violation: z
      .number()
      .nullable()
      .describe(
        `the largest violation of the point, each divided by its size (bounds: max(1, |bound|); rows: max(1, Σ|a·x| over continuous columns); integrality: absolute distance; objective: max(1, Σ|c·x|)); it passes at ${FEASIBILITY_TOLERANCE} and below; null without a point`,
      ),
    where: ViolationPlaceSchema.nullable().describe("the worst row, bound or integer variable, in the model's names; null when nothing is violated"),
    message: z.string().nullable().describe("what the gate found or changed, in words; null when the point passed as the solver reported it"),
    claimed_status: SolverStatusSchema.describe(
      "what the solver itself answered (the response's `solver_status`; in a comparison row, whose `solver_status` is the verdict, only here)",
    ),
    solver_objective: z.number().nullable().describe("the solver's own objective value; `objective_value` is the one recomputed from the point"),
    retried_with: z
      .object({
        integrality_tolerance: z.number().describe("the tightened integrality tolerance the solve was repeated with"),
        feasibility_tolerance: z
          .number()
          .nullable()
          .describe("the tightened row feasibility tolerance it was repeated with; null when the solver has no such option (jaos, glpsol)"),
        first_answer: z.string().describe("why: the first answer's point, in words"),
      })
      .nullable()
      .describe(
        "set when the solve was repeated once because its point passed only within the solver's own tolerance: integer values a tolerance from their integers (a big-M trickle), or a big-M row's slack taken as room",
      ),
    cross_check: z
      .object({
        solver_name: z.string(),
        solver_status: SolverStatusSchema.describe("the second solver's verdict, after its own verification"),
        objective_value: z.number().nullable(),
      })
      .nullable()
      .describe(
        "a verdict checked by a second solver in the same time budget, on a model with risky numerics: an infeasible or unbounded verdict without a certificate (a verified point refutes it), or a MILP optimum (a verified better point disproves its bound: the answer is then feasible)",
      ),
    refuted_by: z
      .object({
        solver_name: z.string().describe("the solver whose verified point refutes this verdict"),
        objective_value: z.number().nullable(),
        solution: z.record(z.string(), z.number()).nullable().describe("its point (null when it is in that row's execution)"),
        execution_id: z.string().nullable().describe("in a comparison: the refuting row's execution"),
      })
      .nullable()
      .describe("a verified point that refutes an infeasible (or unbounded) verdict"),
  })
  .describe(
    `the verification gate's check of the reported point against the model as submitted: bounds and rows within ${FEASIBILITY_TOLERANCE}·max(1, size) (a row's size: its continuous terms, the integer variables at their integers), integrality within ${INTEGRALITY_TOLERANCE} with the rounded point still feasible, the objective recomputed within ${OBJECTIVE_TOLERANCE} relative; the same tolerances for every solver (docs/decisions.md)`,
  );
SCHEMA_NAMES.add(VerificationSchema, { id: "Verification" });
export type Verification = z.infer<typeof VerificationSchema>;
