import { z } from "zod";
import { SCHEMA_NAMES } from "../schema-names.js";

/**
 * The canonical problem: the body of a plain solve, a comparison's `problem`, and what import preview
 * returns. Public: clients build it by hand, so omitted bounds and types take the usual defaults
 * (lb 0, ub +inf, continuous). An infinite bound is written `null` (JSON has no Infinity).
 */

const finite = z.number().refine(Number.isFinite, "must be a finite number");

export const VariableTypeSchema = z.enum(["continuous", "integer", "binary"]);

export const VariableSchema = z.object({
  name: z.string().min(1).max(255),
  lb: finite.nullable().default(0).describe("lower bound; null = -infinity"),
  ub: finite.nullable().default(null).describe("upper bound; null = +infinity"),
  type: VariableTypeSchema.default("continuous"),
});

export const TermSchema = z.object({ var: z.string().min(1), coef: finite });
export const QuadraticTermSchema = z.object({ var1: z.string().min(1), var2: z.string().min(1), coef: finite });

export const ObjectiveSchema = z.object({
  constant: finite.default(0),
  terms: z.array(TermSchema).default([]),
  quadratic: z.array(QuadraticTermSchema).optional().describe("coef·var1·var2 for each entry"),
});

export const ConstraintSchema = z.object({
  name: z.string().min(1).max(255),
  terms: z.array(TermSchema),
  lb: finite.nullable().default(null).describe("null = -infinity"),
  ub: finite.nullable().default(null).describe("null = +infinity"),
});

const ProblemShape = z.object({
  name: z.string().min(1).max(255).default("problem"),
  sense: z.enum(["minimize", "maximize"]).default("minimize"),
  variables: z.array(VariableSchema).min(1),
  objective: ObjectiveSchema.default({ constant: 0, terms: [] }),
  constraints: z.array(ConstraintSchema).default([]),
});

/** Cross-field rules: unique names, known variables in every term, lb ≤ ub. */
export const ProblemSchema = ProblemShape.superRefine((p, ctx) => {
  const names = new Set<string>();
  p.variables.forEach((v, i) => {
    if (names.has(v.name)) ctx.addIssue({ code: "custom", path: ["variables", i, "name"], message: `duplicate variable name "${v.name}"` });
    names.add(v.name);
    if (v.lb !== null && v.ub !== null && v.lb > v.ub) {
      ctx.addIssue({ code: "custom", path: ["variables", i], message: `lower bound ${v.lb} is above upper bound ${v.ub}` });
    }
  });
  const unknown = (path: (string | number)[], name: string) => ctx.addIssue({ code: "custom", path, message: `unknown variable "${name}"` });
  p.objective.terms.forEach((t, i) => {
    if (!names.has(t.var)) unknown(["objective", "terms", i, "var"], t.var);
  });
  p.objective.quadratic?.forEach((q, i) => {
    if (!names.has(q.var1)) unknown(["objective", "quadratic", i, "var1"], q.var1);
    if (!names.has(q.var2)) unknown(["objective", "quadratic", i, "var2"], q.var2);
  });
  const rows = new Set<string>();
  p.constraints.forEach((c, i) => {
    if (rows.has(c.name)) ctx.addIssue({ code: "custom", path: ["constraints", i, "name"], message: `duplicate constraint name "${c.name}"` });
    rows.add(c.name);
    if (c.lb !== null && c.ub !== null && c.lb > c.ub) {
      ctx.addIssue({ code: "custom", path: ["constraints", i], message: `lower bound ${c.lb} is above upper bound ${c.ub}` });
    }
    c.terms.forEach((t, j) => {
      if (!names.has(t.var)) unknown(["constraints", i, "terms", j, "var"], t.var);
    });
  });
});
SCHEMA_NAMES.add(ProblemSchema, { id: "Problem" });

export type Problem = z.output<typeof ProblemSchema>;
export type ProblemInput = z.input<typeof ProblemSchema>;
export type Variable = z.output<typeof VariableSchema>;
export type Constraint = z.output<typeof ConstraintSchema>;
export type Term = z.output<typeof TermSchema>;
export type VariableType = z.output<typeof VariableTypeSchema>;

export const PROBLEM_CLASSES = ["LP", "MILP", "QP", "MIQP"] as const;
export type ProblemClass = (typeof PROBLEM_CLASSES)[number];

export function hasIntegers(p: Problem): boolean {
  return p.variables.some((v) => v.type !== "continuous");
}

/**
 * An integer column unbounded on a side. Branch and bound cannot enumerate such a column, and some
 * solvers' presolvers loop or stall on it (GLPK 5.0, HiGHS 1.15), so adapters solve these differently.
 */
export function hasOpenIntegerColumn(p: Problem): boolean {
  return p.variables.some((v) => v.type === "integer" && (v.lb === null || v.ub === null));
}

export function hasQuadratic(p: Problem): boolean {
  return (p.objective.quadratic?.length ?? 0) > 0;
}

export function problemClass(p: Problem): ProblemClass {
  const ints = hasIntegers(p);
  if (hasQuadratic(p)) return ints ? "MIQP" : "QP";
  return ints ? "MILP" : "LP";
}

export const ProblemStatsSchema = z.object({
  problem_class: z.enum(PROBLEM_CLASSES),
  variable_count: z.number().int(),
  constraint_count: z.number().int(),
  integer_count: z.number().int(),
  binary_count: z.number().int(),
  nonzero_count: z.number().int(),
  quadratic_term_count: z.number().int(),
});
export type ProblemStats = z.infer<typeof ProblemStatsSchema>;

export function problemStats(p: Problem): ProblemStats {
  let integer = 0;
  let binary = 0;
  for (const v of p.variables) {
    if (v.type === "integer") integer++;
    else if (v.type === "binary") binary++;
  }
  let nonzeros = 0;
  for (const c of p.constraints) nonzeros += c.terms.length;
  return {
    problem_class: problemClass(p),
    variable_count: p.variables.length,
    constraint_count: p.constraints.length,
    integer_count: integer,
    binary_count: binary,
    nonzero_count: nonzeros,
    quadratic_term_count: p.objective.quadratic?.length ?? 0,
  };
}
