import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TriggerInputError } from "../../../../../functions/core/errors.js";
import { type CheckedField, OverrideFieldSchema, resolveRunInput } from "../../../../../functions/core/triggers/overrides.js";

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
