import { describe, expect, it } from "vitest";
import { resolveSettings, SettingsRequestSchema, toSolveSettings } from "../../../../../functions/core/solvers/settings.js";

const config = { instanceMaxSolveTimeSeconds: 300, defaultTimeLimitSeconds: 60, defaultGapTolerance: 1e-4, solverThreads: 2 };

describe("solve settings", () => {
  it("explain_infeasibility reaches the stored settings and the adapters' SolveSettings only when asked", () => {
    const asked = resolveSettings(config, SettingsRequestSchema.parse({ explain_infeasibility: true }));
    expect(asked.explain_infeasibility).toBe(true);
    expect(toSolveSettings(asked).explainInfeasibility).toBe(true);
    const plain = resolveSettings(config, SettingsRequestSchema.parse({}));
    expect("explain_infeasibility" in plain).toBe(false);
    expect(toSolveSettings(plain).explainInfeasibility).toBe(false);
  });

  it("refuses a non-boolean explain_infeasibility", () => {
    expect(SettingsRequestSchema.safeParse({ explain_infeasibility: "yes" }).success).toBe(false);
  });
});
