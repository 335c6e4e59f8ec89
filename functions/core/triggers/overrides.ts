import { z } from "zod";
import { TriggerInputError, type ValidationIssue } from "../errors.js";
import { RaceRequestSchema, type RaceRequest } from "../races/schemas.js";
import { isSolverName } from "../solvers/registry.js";
import { SolverChoiceSchema, type SolverChoice } from "../solvers/types.js";
import { SCHEMA_NAMES } from "../schema-names.js";

/**
 * Override rules, shared by trigger runs and document executions. A run's input is built in the
 * spec's order: the pinned version's model (and the solver it names), then the trigger's solver_name,
 * then the overrides — so a `solver_name` override, sent or taken from its default, wins.
 *
 * Checks at fire time, first failing one answers (each a 422 with its code):
 *   1. every sent field is declared                → trigger.override_unknown_fields
 *   2. every required field is sent or has a default → trigger.override_missing_required
 *   3. the solver the run would use is here        → trigger.solver_unavailable
 *      (with solver `race`: each of its entrants, `race.solvers` from an override or the trigger)
 * The spec's list of codes is closed, so a value of the wrong JSON type is not refused here: the run
 * fails when the model is compiled with it, with the compiler's words (docs/decisions.md, Triggers).
 */
export const OVERRIDE_TYPES = ["array", "object", "number", "integer", "string", "boolean"] as const;
export type OverrideType = (typeof OVERRIDE_TYPES)[number];

/** The override that names a solver instead of a model parameter. */
export const SOLVER_OVERRIDE = "solver_name";
/** The override that names a race's entrants (`{solvers: [...]}`, the solve's `race`) instead of a model parameter. */
export const RACE_OVERRIDE = "race";

/** A trigger run's values that replace model data: every effective override but the solver and the race's entrants. */
export function modelOverridesOf(effective: Record<string, unknown>): Record<string, unknown> {
  const { [SOLVER_OVERRIDE]: _solver, [RACE_OVERRIDE]: _race, ...model } = effective;
  return model;
}

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
SCHEMA_NAMES.add(OverrideFieldSchema, { id: "OverrideField" });
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
    if (f.name === RACE_OVERRIDE) {
      if (f.type !== "object") issues.push({ loc: [...at, "type"], msg: "race is an object ({solvers: [...]})", type: "value_error" });
      const parsed = f.default === undefined ? null : RaceRequestSchema.safeParse(f.default);
      if (parsed && !parsed.success) {
        for (const issue of parsed.error.issues) issues.push({ loc: [...at, "default", ...issue.path.map(String)], msg: issue.message, type: "value_error" });
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
  /**
   * A trigger's race entrants, used when the run's solver is `race` and no `race` override names them
   * (null: every available solver). Present (even null) only for a trigger, where `race` is the entrants'
   * override; absent for a document run, whose entrants come in its request and whose `race` would be model data.
   */
  race?: RaceRequest | null;
}

export interface ResolvedInput {
  /** The override values the run uses: sent ones plus defaults (recorded as the run's override_data). */
  effective: Record<string, unknown>;
  /** The effective values that replace model data (everything but solver_name, and a trigger's race). */
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
  const solverOverride = effective[SOLVER_OVERRIDE];
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
  const triggerRun = solvers.race !== undefined;
  if (triggerRun && solver === "race") {
    assertEntrantsAvailable(Object.hasOwn(effective, RACE_OVERRIDE) ? effective[RACE_OVERRIDE] : solvers.race, solvers.available);
  }
  const { [SOLVER_OVERRIDE]: _solver, ...withoutSolver } = effective;
  return { effective, modelOverrides: triggerRun ? modelOverridesOf(effective) : withoutSolver, solver: solver as SolverChoice };
}

/**
 * A race's named entrants must be solvers this server has (trigger.solver_unavailable, the first one
 * missing). Only the names are checked here: a race value of another shape (one solver, a name twice,
 * not an object) fails the run when it starts, with the schema's words, as a model value of the wrong
 * type does (the fire's list of codes is closed).
 */
function assertEntrantsAvailable(race: unknown, available: ReadonlySet<string>): void {
  const named = (race as { solvers?: unknown } | null | undefined)?.solvers;
  if (!Array.isArray(named)) return;
  const missing = named.find((name) => !(typeof name === "string" && isSolverName(name) && available.has(name)));
  if (missing === undefined) return;
  throw new TriggerInputError("trigger.solver_unavailable", {
    message: `Solver ${String(missing)}, named in race.solvers, is not available on this server.`,
    params: { solver_name: String(missing), available_solvers: [...available].sort() },
  });
}

/**
 * The entrants of a run whose solver is `race`: the fire's `race` override when it sent one (or its
 * declared default), else the trigger's. Null: every available solver that can run the class.
 * Throws a readable message when the override's value is not a race request.
 */
export function runRaceRequest(overrideData: Record<string, unknown>, trigger: RaceRequest | null | undefined): RaceRequest | null {
  if (!Object.hasOwn(overrideData, RACE_OVERRIDE)) return trigger ?? null;
  const parsed = RaceRequestSchema.safeParse(overrideData[RACE_OVERRIDE]);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new Error(`the race override is not {solvers: [...]}: ${[RACE_OVERRIDE, ...issue.path.map(String)].join(".")}: ${issue.message}`);
}
