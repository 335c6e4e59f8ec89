import { z } from "zod";
import { PROBLEM_CLASSES, ProblemSchema } from "../../problem/schema.js";
import { SolverNameSchema } from "../types.js";
import { CONFIDENCE, K_NEAREST, MAX_DISTANCE, MIN_SIMILAR } from "./recommender.js";
import { SCHEMA_NAMES } from "../../schema-names.js";

const EvidenceSchema = z.object({
  comparisons: z.number().int().describe("how many of the organization's finished comparisons (and matrix rows) the choice read, newest first"),
  similar_problems: z
    .array(z.string())
    .describe(
      `the past problems it judged by, nearest first: comparison ids, or public benchmark instance names where the organization had fewer than ${MIN_SIMILAR} similar ones`,
    ),
});

/** When `auto`'s choice did not answer and the default rule's solver answered instead (jobs/auto-fallback.ts). */
export const AutoFallbackSchema = z
  .object({
    from: SolverNameSchema.describe("the solver `auto` chose first, which ended in an error or an answer the verification gate refuted"),
    seconds: z.number().describe("how long that first run took; the default's run had what was left of the time limit"),
    reason: z.string().describe("what happened, in words: the first solver's error and the default it fell back to"),
  })
  .describe(
    "ours: present when `auto` chose a solver other than the class's default, that solver ended in an error (or a refuted answer), and the " +
      "same job solved again with the default within what was left of the time limit; `solver` is then the default. A time-limit " +
      "outcome never falls back (the limit is the caller's). No credits are charged for the second run: the solve was paid for once",
  );
export type AutoFallback = z.infer<typeof AutoFallbackSchema>;

/** Why `auto` ran the solver it did: on an execution and in its result. */
export const AutoChoiceSchema = z
  .object({
    solver: SolverNameSchema,
    reason: z.string().describe("the choice in words: the evidence and the expected times, or why today's rule decided"),
    basis: z
      .enum(["organization", "public", "default_rule"])
      .describe("your comparisons, the public benchmark table shipped with the service, or today's rule"),
    evidence: EvidenceSchema,
    fallback: AutoFallbackSchema.optional(),
  })
  .describe("ours: how solver_name `auto` chose (issue 29); absent when a solver was named");
SCHEMA_NAMES.add(AutoChoiceSchema, { id: "AutoChoice" });
export type AutoChoice = z.infer<typeof AutoChoiceSchema>;

/** GET /api/v2/solvers/recommendation: the problem's stats as query parameters. */
export const RecommendationQuerySchema = z.object({
  class: z.enum(PROBLEM_CLASSES).describe("the problem class: LP, MILP, QP or MIQP"),
  variables: z.coerce.number().int().min(0).describe("columns"),
  constraints: z.coerce.number().int().min(0).describe("rows"),
  nonzeros: z.coerce.number().int().min(0).optional().describe("nonzero constraint coefficients"),
  integer_variables: z.coerce.number().int().min(0).optional().describe("integer and binary columns together"),
});
export type RecommendationQuery = z.infer<typeof RecommendationQuerySchema>;

/** POST /api/v2/solvers/recommendation: the problem itself, as a solve's body carries it. */
export const RecommendationBodySchema = z.object({ problem: ProblemSchema });

export const RecommendationSchema = AutoChoiceSchema.extend({
  ranking: z
    .array(
      z.object({
        solver: SolverNameSchema,
        expected_seconds: z
          .number()
          .nullable()
          .describe(
            `shifted geometric mean (shift 1 s) of its times on the similar problems, a run not solved right at its time limit; null with runs on fewer than ${MIN_SIMILAR}`,
          ),
        fastest_on: z.number().int().describe("on how many of the similar problems it was fastest"),
        runs: z.number().int().describe("how many of the similar problems it ran on"),
      }),
    )
    .describe(
      "every available solver able to run the class: the chosen one first, then fastest expected; those without enough evidence after, in the default rule's order",
    ),
}).describe(
  `what auto would choose now: the ${K_NEAREST} nearest past problems of the same class within ${MAX_DISTANCE} (decades of size), at least ${MIN_SIMILAR}, else the default rule; the default rule's solver is kept unless another is clearly faster on them (a paired comparison, ${CONFIDENCE} standard errors of margin), saves time on them in seconds too, and did not leave more of them unanswered (time limit, error, wrong answer) than the default`,
);
SCHEMA_NAMES.add(RecommendationSchema, { id: "Recommendation" });
export type RecommendationView = z.infer<typeof RecommendationSchema>;
