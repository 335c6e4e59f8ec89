import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeMps } from "../../functions/core/problem/mps.js";
import { FEASIBILITY_TOLERANCE } from "../../functions/core/solvers/verification.js";
import { FIXED_CHARGE_OPTIMUM, fixedCharge, INDICATOR_OPTIMUM, indicator, SEMI_CONTINUOUS_OPTIMUM, semiContinuous } from "../support/big-m.js";
import { machineHas } from "../support/machine.js";
import { isFinal, pollUntil } from "../support/poll.js";
import { startTestStack } from "../support/test-stack.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;
const ready = machineHas("cbc", "glpsol", "python_solvers");
const near = (value: number | null, expected: number) => value !== null && Math.abs(value - expected) <= 1e-6 * Math.max(1, Math.abs(expected));

/**
 * The issue-24 defects through the service as a user meets them (HTTP, the real workers and solvers):
 * native HiGHS's optimum 3.0000036 on the fixed charge at M = 1e7 (optimum 15), CBC's infeasible at
 * M ≥ 1e8 on feasible big-M models, and a comparison whose agreement ignored a verdict conflict. Each
 * expectation here failed on the code before the verification gate.
 */
describe.runIf(ready)("the verification gate on the issue's big-M models", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", LOCAL_WORKERS: "1" } });
  });
  afterAll(() => stack?.stop());

  const solve = async (problem: unknown, solver: string) => {
    const res = await stack.api.post("/api/v2/solve", { problem, solver_name: solver, settings: { time_limit_seconds: 30 } });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };

  it("native HiGHS on the fixed charge at M = 1e7: the trickle y1 = 3e-7 is caught, the solve repeated once, and 15 reported", async () => {
    const body = await solve(fixedCharge(1e7), "highs");
    expect(body.status, JSON.stringify(body.verification)).toBe("optimal");
    expect(near(body.objective_value, FIXED_CHARGE_OPTIMUM), String(body.objective_value)).toBe(true);
    expect(body.solution).toMatchObject({ x1: 3, y1: 1 });
    expect(body.verification).toMatchObject({
      status: "verified",
      claimed_status: "optimal",
      retried_with: { integrality_tolerance: expect.any(Number), first_answer: expect.stringContaining('row "link1"') },
    });
    expect(body.verification.retried_with.integrality_tolerance).toBeLessThanOrEqual(1e-9);
    expect(body.verification.max_violation).toBeLessThanOrEqual(FEASIBILITY_TOLERANCE);
    // The first run's false incumbent (3.0000036) is not in the reported history.
    for (const i of body.incumbents) expect(i.objective_value).toBeGreaterThanOrEqual(FIXED_CHARGE_OPTIMUM - 1e-6);
    expect(body.numerics).toMatchObject({ matrix_range: { min: 1, max: 1e7 }, warnings: [expect.objectContaining({ range: "matrix", kind: "wide_range" })] });
  });

  it.each([
    ["fixed charge", fixedCharge(1e8), FIXED_CHARGE_OPTIMUM],
    ["indicator", indicator(1e8), INDICATOR_OPTIMUM],
    ["fixed charge", fixedCharge(1e9), FIXED_CHARGE_OPTIMUM],
    ["indicator", indicator(1e9), INDICATOR_OPTIMUM],
  ])("CBC on the %s model %#: its infeasible (no certificate, risky numerics) is refuted by a second solver's verified point", async (_, problem, optimum) => {
    const body = await solve(problem, "cbc");
    expect(body.solver_status).toBe("infeasible");
    expect(body.status).toBe("error");
    expect(body.error_message).toMatch(/said infeasible, but \w+ found a point that satisfies every bound, row and integrality/);
    expect(body.verification).toMatchObject({ status: "violated", claimed_status: "infeasible", cross_check: { solver_status: "optimal" } });
    expect(body.verification.refuted_by.solver_name).toBe(body.verification.cross_check.solver_name);
    expect(near(body.verification.refuted_by.objective_value, optimum)).toBe(true);
    expect(Object.keys(body.verification.refuted_by.solution).sort()).toEqual(problem.variables.map((v) => v.name).sort());
    // The execution ends failed, its result readable.
    const exe = await stack.api.get(`/api/v2/models/executions/${body.execution_id}`);
    expect(exe.body).toMatchObject({ status: "failed", error_message: body.error_message, result: { status: "error", solver_status: "infeasible" } });
  });

  it("CBC on the semi-continuous model at M = 1e8: its optimum 3.0000003 (s = 3e-8) is repeated with integerTolerance and 13 reported", async () => {
    const body = await solve(semiContinuous(1e8), "cbc");
    expect(body.status, JSON.stringify(body.verification)).toBe("optimal");
    expect(near(body.objective_value, SEMI_CONTINUOUS_OPTIMUM), String(body.objective_value)).toBe(true);
    expect(body.solution).toMatchObject({ s: 1, x: 3 });
    expect(body.verification.retried_with).toMatchObject({ first_answer: expect.stringContaining('row "upper"') });
  });

  it("a comparison of the indicator at M = 1e7 over all five solvers: every infeasible claim is refuted, and the agreement says whether verdicts agree", async () => {
    const solvers = ["scip", "highs", "cbc", "glpk", "jaos"];
    const launched = await stack.api.post("/api/v2/solvers/compare", { problem: indicator(1e7), solver_names: solvers, settings: { time_limit_seconds: 30 } });
    expect(launched.status, launched.text).toBe(202);
    expect(launched.body.numerics).toMatchObject({ matrix_range: { min: 1, max: 1e7 } });
    const done = await pollUntil(stack.api, `/api/v2/solvers/compare/${launched.body.id}`, isFinal, { timeoutMs: 240_000 });
    const claims = done.results.map((r: { verification: { claimed_status: string } }) => r.verification.claimed_status);
    for (const row of done.results) {
      const claimed = row.verification.claimed_status;
      if (claimed === "infeasible") {
        // jaos said so before its big-M fixes: the verdict stands refuted, never as infeasible.
        expect(row.solver_status, row.solver_name).toBe("error");
        expect(row.verification.refuted_by, row.solver_name).toMatchObject({ solver_name: expect.any(String), objective_value: INDICATOR_OPTIMUM });
      }
      if (row.solver_status === "optimal") expect(near(row.objective_value, INDICATOR_OPTIMUM), row.solver_name).toBe(true);
      expect(["optimal", "feasible", "error"], `${row.solver_name} ${row.solver_status}`).toContain(row.solver_status);
    }
    const refuted = done.results
      .filter((r: { verification: { claimed_status: string } }) => r.verification.claimed_status === "infeasible")
      .map((r: { solver_name: string }) => r.solver_name);
    expect(done.agreement.verdicts_agree, JSON.stringify(claims)).toBe(refuted.length === 0);
    for (const name of refuted) expect(done.agreement.disagreeing_solvers).toContain(name);
    expect(done.agreement.conflicts.filter((c: { kind: string }) => c.kind === "infeasible_refuted").map((c: { solvers: string[] }) => c.solvers[0])).toEqual(
      refuted,
    );
  });

  it("the import preview shows the ranges and names the rows and columns that make them wide", async () => {
    const { text } = writeMps(fixedCharge(1e9));
    const res = await stack.api.post("/api/v2/solve/import/preview", { content: text, format: "mps", filename: "fixed_charge.mps" });
    expect(res.status, res.text).toBe(200);
    expect(res.body.numerics.matrix_range).toEqual({ min: 1, max: 1e9 });
    const kinds = res.body.numerics.warnings.map((w: { kind: string }) => w.kind).sort();
    expect(kinds).toEqual(["large_values", "wide_range"]);
    for (const w of res.body.numerics.warnings) {
      expect(w.rows.length).toBeGreaterThan(0);
      expect(w.rows.every((r: string) => r.startsWith("link"))).toBe(true);
      expect(w.columns.some((c: string) => c.startsWith("y"))).toBe(true);
    }
  });
});
