import { describe, expect, it } from "vitest";
import { clampTimeLimit, loadConfig } from "../../../../functions/core/config.js";
import { idTime, looksLikeId, newId } from "../../../../functions/core/ids.js";
import { pickAuto, unsupportedReason } from "../../../../functions/core/solvers/registry.js";
import { redact } from "../../../../functions/core/logger.js";

describe("ids", () => {
  it("are prefixed, carry their creation time and sort in creation order", () => {
    const ids = Array.from({ length: 200 }, (_, i) => newId("cmp", 1_700_000_000_000 + Math.floor(i / 50)));
    expect(ids.every((id) => looksLikeId(id, "cmp"))).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(idTime(ids[0]!)).toBe(1_700_000_000_000);
  });
});

describe("config", () => {
  it("uses the spec's defaults, with 0 meaning no ceiling", () => {
    const c = loadConfig({});
    expect(c.instanceRateLimit).toEqual({ perMinute: 120, perDay: 50_000 });
    expect(c.solveRateLimit).toEqual({ perMinute: 60, perDay: 10_000 });
    expect(c.authMaxActiveApiKeysPerUser).toBe(25);
    expect(c.instanceMaxDailySolves).toBe(0);
    expect(c.creditPriceEur).toBe(0.01);
    expect(clampTimeLimit(c, 1e6)).toBe(1e6);
    expect(clampTimeLimit(loadConfig({ INSTANCE_MAX_SOLVE_TIME_SECONDS: "30" }), 60)).toBe(30);
  });

  it("refuses a malformed number instead of guessing", () => {
    expect(() => loadConfig({ INSTANCE_MAX_VARIABLES: "lots" })).toThrow(/INSTANCE_MAX_VARIABLES/);
  });

  it("reads the webhook retry schedule as one comma-separated setting", () => {
    expect(loadConfig({ WEBHOOK_RETRY_DELAYS_SECONDS: "1, 2,5" }).webhookRetryDelaysSeconds).toEqual([1, 2, 5]);
  });
});

describe("solver registry", () => {
  const all = new Set(["scip", "highs", "cbc", "glpk", "jaos"]);
  it("names the spec's unsupported reasons", () => {
    expect(unsupportedReason("gurobi", "LP", all)).toBe("not_registered");
    expect(unsupportedReason("jaos", "LP", new Set(["scip"]))).toBe("not_available");
    expect(unsupportedReason("cbc", "QP", all)).toBe("quadratic_terms");
    expect(unsupportedReason("highs", "MIQP", all)).toBe("quadratic_terms");
    expect(unsupportedReason("highs", "QP", all)).toBeNull();
    expect(unsupportedReason("scip", "MIQP", all)).toBeNull();
  });
  it("auto picks an available solver that can express the class", () => {
    expect(pickAuto("MIQP", all)).toBe("scip");
    expect(pickAuto("MILP", new Set(["cbc", "glpk"]))).toBe("cbc");
    expect(pickAuto("QP", new Set(["cbc"]))).toBeNull();
  });
});

describe("logger redaction", () => {
  it("replaces every credential-named field however deep", () => {
    expect(redact({ a: 1, headers: { Authorization: "Bearer x" }, list: [{ api_key: "k", ok: true }], password: "p" })).toEqual({
      a: 1,
      headers: { Authorization: "[redacted]" },
      list: [{ api_key: "[redacted]", ok: true }],
      password: "[redacted]",
    });
  });
});

describe("solution values", () => {
  it("reports integer and binary variables as integers when within the integrality tolerance, and nothing else changes", async () => {
    const { snapIntegerValues } = await import("../../../../functions/core/solvers/solution.js");
    const problem = {
      name: "p",
      sense: "minimize" as const,
      variables: [
        { name: "b", lb: 0, ub: 1, type: "binary" as const },
        { name: "i", lb: null, ub: null, type: "integer" as const },
        { name: "c", lb: 0, ub: null, type: "continuous" as const },
        { name: "far", lb: 0, ub: 10, type: "integer" as const },
      ],
      objective: { constant: 0, terms: [] },
      constraints: [],
    };
    expect(snapIntegerValues(problem, { b: 0.9999999999999992, i: -7.894919286223335e-16, c: 0.9999999999999992, far: 2.4 })).toEqual({
      b: 1,
      i: 0,
      c: 0.9999999999999992,
      far: 2.4,
    });
    expect(Object.is(snapIntegerValues(problem, { i: -1e-12 })!.i, -0)).toBe(false);
    expect(snapIntegerValues(problem, null)).toBeNull();
  });
});
