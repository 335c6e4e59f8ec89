import { z } from "zod";
import { TriggerInputError, type ValidationIssue } from "../errors.js";
import { isSolverName } from "../solvers/registry.js";
import { SolverChoiceSchema, type SolverChoice } from "../solvers/types.js";

/**
 * Override rules, shared by trigger runs and document executions. A run's input is built in the
 * spec's order: the pinned version's model (and the solver it names), then the trigger's solver_name,
 * then the overrides — so a `solver_name` override, sent or taken from its default, wins.
 *
 * Checks at fire time, first failing one answers (each a 422 with its code):
 *   1. every sent field is declared                → trigger.override_unknown_fields
 *   2. every required field is sent or has a default → trigger.override_missing_required
 *   3. the solver the run would use is here        → trigger.solver_unavailable
 * The spec's list of codes is closed, so a value of the wrong JSON type is not refused here: the run
 * fails when the model is compiled with it, with the compiler's words (docs/decisions.md, Triggers).
 */
export const OVERRIDE_TYPES = ["array", "object", "number", "integer", "string", "boolean"] as const;
export type OverrideType = (typeof OVERRIDE_TYPES)[number];

/** The override that names a solver instead of a model parameter. */
export const SOLVER_OVERRIDE = "solver_name";

export const OverrideFieldSchema = z.object({
  name: z
    .string()
    .max(100, { abort: true })
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "a set or parameter name of the model, or solver_name")
    // No object can hold this key as data (it is the prototype's accessor); every other name is stored as given.
    .refine((name) => name !== "__proto__", "__proto__ cannot name an override"),
  type: z
    .enum(OVERRIDE_TYPES)
    .describe(
      "JSON type of the value: array (a set, or an indexed parameter as [[key…, value]…]), object (an indexed parameter as a map), number, integer, string (solver_name), boolean",
    ),
  required: z.boolean().default(false),
  default: z.unknown().optional().describe("used when the field is not sent; a required field with a default need not be sent"),
});
export type OverrideField = z.infer<typeof OverrideFieldSchema>;

export function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

export function matchesType(value: unknown, type: OverrideType | "any"): boolean {
  switch (type) {
    case "any":
      return value !== undefined;
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "object":
      return jsonTypeOf(value) === "object";
    default:
      return jsonTypeOf(value) === type;
  }
}

/**
 * What is wrong with an override schema for a model whose data-given names are `overridable` (checked
 * when a trigger is created or its schema changed, so a fire never meets a field the model lacks).
 */
export function overrideSchemaIssues(fields: OverrideField[], overridable: readonly string[], root: (string | number)[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const at = [...root, i];
    if (seen.has(f.name)) issues.push({ loc: [...at, "name"], msg: `${f.name} is declared twice`, type: "value_error" });
    seen.add(f.name);
    if (f.name === SOLVER_OVERRIDE) {
      if (f.type !== "string") issues.push({ loc: [...at, "type"], msg: "solver_name is a string", type: "value_error" });
      if (f.default !== undefined && !SolverChoiceSchema.safeParse(f.default).success) {
        issues.push({ loc: [...at, "default"], msg: `default must be one of ${SolverChoiceSchema.options.join(", ")}`, type: "value_error" });
      }
      return;
    }
    if (!overridable.includes(f.name)) {
      const known = overridable.length ? `it has: ${overridable.join(", ")}` : "it has none";
      issues.push({
        loc: [...at, "name"],
        msg: `the pinned model has no set or parameter ${f.name} that data may give (${known}; or solver_name)`,
        type: "value_error",
      });
    }
    if (f.default !== undefined && !matchesType(f.default, f.type)) {
      issues.push({ loc: [...at, "default"], msg: `default is ${jsonTypeOf(f.default)}, not ${f.type}`, type: "value_error" });
    }
  });
  return issues;
}

export interface SolverChain {
  /** The solver the pinned version names. */
  version: SolverChoice;
  /** The trigger's (or request's) solver_name; null = the version's. */
  chosen: SolverChoice | null;
  /** Solvers this server has. */
  available: ReadonlySet<string>;
}

export interface ResolvedInput {
  /** The override values the run uses: sent ones plus defaults (recorded as the run's override_data). */
  effective: Record<string, unknown>;
  /** The effective values that replace model data (everything but solver_name). */
  modelOverrides: Record<string, unknown>;
  solver: SolverChoice;
}

/** A field as the checks see it: declared fields of a trigger, or every overridable name (document runs). */
export interface CheckedField {
  name: string;
  type: OverrideType | "any";
  required: boolean;
  default?: unknown;
}

/** Applies defaults and checks `sent` against `fields`; throws TriggerInputError (run_id null) when refused. */
export function resolveRunInput(fields: readonly CheckedField[], sent: Record<string, unknown>, solvers: SolverChain): ResolvedInput {
  const declared = new Map(fields.map((f) => [f.name, f]));
  const unknown = Object.keys(sent).filter((k) => !declared.has(k));
  if (unknown.length > 0) {
    throw new TriggerInputError("trigger.override_unknown_fields", {
      message: `override_data has fields the trigger does not declare: ${unknown.join(", ")}.`,
      params: {
        unknown_fields: unknown,
        allowed_fields: fields.map((f) => f.name),
      },
    });
  }
  // Own keys only: `constructor` or `toString` is "in" every object (its prototype's), never sent by being so.
  const missing = fields.filter((f) => f.required && !Object.hasOwn(sent, f.name) && f.default === undefined).map((f) => f.name);
  if (missing.length > 0) {
    throw new TriggerInputError("trigger.override_missing_required", {
      message: `override_data lacks required fields: ${missing.join(", ")}.`,
      params: {
        missing_fields: missing,
      },
    });
  }
  // Built from entries (own data properties whatever their names), never by assignment onto a plain object.
  const effective: Record<string, unknown> = Object.fromEntries([
    ...fields.filter((f) => f.default !== undefined).map((f) => [f.name, f.default] as const),
    ...Object.entries(sent),
  ]);
  const { [SOLVER_OVERRIDE]: solverOverride, ...modelOverrides } = effective;
  const solver = String(solverOverride ?? solvers.chosen ?? solvers.version);
  // `auto` and `race` choose among the available solvers when the run is admitted (a race of fewer than two runs one: races/rules.ts).
  const chooses = solver === "auto" || solver === "race";
  if (!(chooses || (isSolverName(solver) && solvers.available.has(solver)))) {
    throw new TriggerInputError("trigger.solver_unavailable", {
      message: `Solver ${solver} is not available on this server.`,
      params: {
        solver_name: solver,
        available_solvers: [...solvers.available].sort(),
      },
    });
  }
  return { effective, modelOverrides, solver: solver as SolverChoice };
}
