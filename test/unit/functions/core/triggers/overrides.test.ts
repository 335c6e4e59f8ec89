import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TriggerInputError } from "../../../../../functions/core/errors.js";
import {
  type CheckedField,
  OverrideFieldSchema,
  overrideSchemaIssues,
  resolveRunInput,
  runRaceRequest,
} from "../../../../../functions/core/triggers/overrides.js";

/** Issue 25: override fields named like Object.prototype's members are neither dropped nor counted as present. */
const solvers = { version: "auto" as const, chosen: null, available: new Set(["highs"]) };
const PROTOTYPE_NAMES = ["constructor", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf", "__defineGetter__", "n", "cost"];

function attempt(fields: CheckedField[], sent: Record<string, unknown>) {
  try {
    return resolveRunInput(fields, sent, solvers);
  } catch (error) {
    if (error instanceof TriggerInputError) return error;
    throw error;
  }
}

describe("override fields named like the prototype's members", () => {
  it("counts a required `constructor` as missing when it is not sent (it was `in` every object)", () => {
    const result = attempt([{ name: "constructor", type: "any", required: true }], {});
    expect(result).toBeInstanceOf(TriggerInputError);
    expect((result as TriggerInputError).fireCode).toBe("trigger.override_missing_required");
  });

  it("keeps sent and default values of such fields as own values (generated fields and sends)", () => {
    const name = fc.constantFrom(...PROTOTYPE_NAMES);
    const field = fc.record({ name, required: fc.boolean(), default: fc.option(fc.integer(), { nil: undefined }) });
    fc.assert(
      fc.property(fc.uniqueArray(field, { selector: (f) => f.name, maxLength: 6 }), fc.func(fc.boolean()), fc.integer(), (specs, sends, value) => {
        const fields: CheckedField[] = specs.map((f) => ({
          name: f.name,
          type: "any",
          required: f.required,
          ...(f.default !== undefined ? { default: f.default } : {}),
        }));
        const sent = Object.fromEntries(specs.filter((f) => sends(f.name)).map((f) => [f.name, value]));
        const result = attempt(fields, sent);
        const missing = fields.filter((f) => f.required && !Object.hasOwn(sent, f.name) && f.default === undefined).map((f) => f.name);
        if (missing.length > 0) {
          expect(result).toBeInstanceOf(TriggerInputError);
          expect((result as TriggerInputError).params).toEqual({ missing_fields: missing });
          return;
        }
        expect(result).not.toBeInstanceOf(TriggerInputError);
        const { effective } = result as Exclude<typeof result, TriggerInputError>;
        for (const f of fields) {
          const expected = Object.hasOwn(sent, f.name) ? value : f.default;
          expect(Object.hasOwn(effective, f.name), f.name).toBe(expected !== undefined);
          if (expected !== undefined) expect(effective[f.name]).toBe(expected);
        }
        expect(Object.getPrototypeOf(effective)).toBe(Object.prototype);
      }),
      { numRuns: 1_000 },
    );
  });

  it("refuses __proto__ as a field's name, at the schema (422 when the trigger is saved), and takes constructor", () => {
    expect(OverrideFieldSchema.safeParse({ name: "__proto__", type: "number" }).success).toBe(false);
    expect(OverrideFieldSchema.safeParse({ name: "constructor", type: "number" }).success).toBe(true);
  });
});

describe("the run's solver", () => {
  const solverField: CheckedField = { name: "solver_name", type: "string", required: false };

  it("takes race (issue 29) and auto from the trigger, the version or an override, whatever is installed", () => {
    expect(resolveRunInput([], {}, { ...solvers, chosen: "race" }).solver).toBe("race");
    expect(resolveRunInput([], {}, { ...solvers, version: "race" }).solver).toBe("race");
    expect(resolveRunInput([solverField], { solver_name: "race" }, { ...solvers, chosen: "highs" }).solver).toBe("race");
    expect(resolveRunInput([solverField], { solver_name: "auto" }, { ...solvers, chosen: "race" }).solver).toBe("auto");
  });

  it("refuses a named solver this server lacks, and a name that is no solver", () => {
    expect(attempt([solverField], { solver_name: "gurobi" })).toMatchObject({ fireCode: "trigger.solver_unavailable" });
    expect(attempt([solverField], { solver_name: "racing" })).toMatchObject({ fireCode: "trigger.solver_unavailable" });
  });
});

describe("a race's entrants on a trigger (issue 29)", () => {
  const raceField: CheckedField = { name: "race", type: "object", required: false };
  const trigger = {
    version: "highs" as const,
    chosen: "race" as const,
    available: new Set(["highs", "glpk"]),
    race: { solvers: ["highs" as const, "glpk" as const] },
  };
  const tryResolve = (sent: Record<string, unknown>, chain: Parameters<typeof resolveRunInput>[2] = trigger) => {
    try {
      return resolveRunInput([raceField, { name: "capacity", type: "any", required: false }], sent, chain);
    } catch (error) {
      if (error instanceof TriggerInputError) return error;
      throw error;
    }
  };

  it("takes the trigger's or a fire's entrants, keeps them out of the model's data, and refuses a solver this server lacks", () => {
    expect(tryResolve({ capacity: 4 })).toMatchObject({ solver: "race", modelOverrides: { capacity: 4 } });
    expect(tryResolve({ capacity: 4, race: { solvers: ["glpk", "highs"] } })).toMatchObject({
      effective: { capacity: 4, race: { solvers: ["glpk", "highs"] } },
      modelOverrides: { capacity: 4 },
    });
    expect(tryResolve({ race: { solvers: ["highs", "jaos"] } })).toMatchObject({
      fireCode: "trigger.solver_unavailable",
      params: { solver_name: "jaos", available_solvers: ["glpk", "highs"] },
    });
    expect(tryResolve({ race: { solvers: ["highs", "cplex"] } })).toMatchObject({ fireCode: "trigger.solver_unavailable", params: { solver_name: "cplex" } });
    // The trigger's own entrants too, when the server no longer has one of them.
    expect(tryResolve({}, { ...trigger, available: new Set(["highs"]) })).toMatchObject({ params: { solver_name: "glpk" } });
    // Another solver than race: the entrants are not read.
    expect(tryResolve({ race: { solvers: ["jaos"] } }, { ...trigger, chosen: "highs" })).toMatchObject({ solver: "highs" });
  });

  it("leaves `race` as model data for a document run, whose entrants come in its request", () => {
    const documentRun = resolveRunInput(
      [{ name: "race", type: "any", required: false }],
      { race: 3 },
      { version: "highs", chosen: null, available: new Set(["highs"]) },
    );
    expect(documentRun.modelOverrides).toEqual({ race: 3 });
  });

  it("a run's entrants: the override's when sent, else the trigger's; an override of another shape is refused in words", () => {
    expect(runRaceRequest({ race: { solvers: ["glpk", "jaos"] } }, { solvers: ["highs", "glpk"] })).toEqual({ solvers: ["glpk", "jaos"] });
    expect(runRaceRequest({ capacity: 4 }, { solvers: ["highs", "glpk"] })).toEqual({ solvers: ["highs", "glpk"] });
    expect(runRaceRequest({}, null)).toBeNull();
    expect(() => runRaceRequest({ race: { solvers: ["highs", "highs"] } }, null)).toThrow(/race\.solvers: each solver at most once/);
    expect(() => runRaceRequest({ race: "highs" }, null)).toThrow(/^the race override is not \{solvers: \[\.\.\.\]\}/);
  });

  it("an override field `race` must be an object whose default is a race's entrants (checked when the trigger is saved)", () => {
    expect(overrideSchemaIssues([{ name: "race", type: "object", required: false, default: { solvers: ["highs", "glpk"] } }], [], ["body"])).toEqual([]);
    const issues = overrideSchemaIssues(
      [
        { name: "race", type: "string", required: false },
        { name: "race", type: "object", required: false, default: { solvers: ["highs", "gurobi"] } },
      ],
      [],
      ["body", "override_schema"],
    );
    expect(issues.map((i) => i.loc.join("."))).toEqual([
      "body.override_schema.0.type",
      "body.override_schema.1.name",
      "body.override_schema.1.default.solvers.1",
    ]);
  });
});
