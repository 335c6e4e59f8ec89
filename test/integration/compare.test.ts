import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { machineHas } from "../support/machine.js";
import { objectiveMatches, readInstance, readManifest } from "../support/manifest.js";
import { isFinal, pollUntil } from "../support/poll.js";
import { signUp } from "../support/accounts.js";
import { startTestStack } from "../support/test-stack.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;
const NATIVE = ["scip", "highs", "cbc", "glpk"];
const ready = machineHas("cbc", "glpsol", "python_solvers");

describe.runIf(ready)("solver comparison over HTTP", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", LOCAL_WORKERS: "2" } });
  });
  afterAll(() => stack?.stop());

  async function importInstance(file: string) {
    const res = await stack.api.post("/api/v2/solve/import/preview", { content: readInstance(file), filename: file });
    expect(res.status, res.text).toBe(200);
    return res.body.problem;
  }

  it("compares scip, highs, cbc and glpk on three MILPs and two LPs: every row filled, objectives as the manifest, objectives agree", async () => {
    const manifest = new Map(readManifest().map((m) => [m.file, m]));
    const files = ["small_mip.mps", "flugpl.mps", "egout.mps", "afiro.mps", "adlittle.mps"];
    const launched = [];
    for (const file of files) {
      const res = await stack.api.post("/api/v2/solvers/compare", { problem: await importInstance(file), solver_names: NATIVE, uploaded_filename: file });
      expect(res.status, res.text).toBe(202);
      expect(res.body.status).toBe("pending");
      expect(res.body.uploaded_filename).toBe(file);
      expect(res.body.results.map((r: { solver_name: string; status: string; solver_status: null }) => [r.solver_name, r.status, r.solver_status])).toEqual(
        NATIVE.map((s) => [s, "pending", null]),
      );
      expect(res.body.settings).toEqual({ time_limit_seconds: 60, gap_tolerance: 0.0001, threads: 1 });
      launched.push({ file, id: res.body.id });
    }
    for (const { file, id } of launched) {
      const done = await pollUntil(stack.api, `/api/v2/solvers/compare/${id}`, isFinal, { timeoutMs: 240_000 });
      const expected = manifest.get(file)!;
      expect(done.status, file).toBe("completed");
      expect(done.problem_class).toBe(expected.kind);
      expect(done.machine_note).toEqual(expect.any(String));
      for (const row of done.results) {
        expect(row.status, `${file} ${row.solver_name}`).toBe("completed");
        expect(row.solver_status, `${file} ${row.solver_name}`).toBe("optimal");
        expect(objectiveMatches(row.objective_value, expected.expectedObjective!), `${file} ${row.solver_name} ${row.objective_value}`).toBe(true);
        expect(row.solver_version).toEqual(expect.any(String));
        expect(row.execution_id).toMatch(/^exe_/);
        expect(row.wall_time_ms).toBeGreaterThan(0);
      }
      expect(done.agreement).toMatchObject({ compared_solvers: NATIVE, objectives_agree: true });
      // Each row's execution is readable on its own.
      const exe = await stack.api.get(`/api/v2/models/executions/${done.results[0].execution_id}`);
      expect(exe.body.origin).toEqual({ kind: "comparison", id });
      expect(exe.body.result.objective_value).toBe(done.results[0].objective_value);
    }
  });

  it("reports a model with two optimal vertices as alternative optima", async () => {
    // max 2x + 2y s.t. x + y ≤ 4, x − y ≤ 2, x,y ≤ 3: optimum 8 on the edge from (1,3) to (3,1).
    const problem = {
      name: "two-vertices",
      sense: "maximize",
      variables: [
        { name: "x", ub: 3 },
        { name: "y", ub: 3 },
      ],
      objective: {
        terms: [
          { var: "x", coef: 2 },
          { var: "y", coef: 2 },
        ],
      },
      constraints: [
        {
          name: "c",
          terms: [
            { var: "x", coef: 1 },
            { var: "y", coef: 1 },
          ],
          ub: 4,
        },
        {
          name: "d",
          terms: [
            { var: "x", coef: 1 },
            { var: "y", coef: -1 },
          ],
          ub: 2,
        },
      ],
    };
    const res = await stack.api.post("/api/v2/solvers/compare", { problem, solver_names: NATIVE });
    const done = await pollUntil(stack.api, `/api/v2/solvers/compare/${res.body.id}`, isFinal);
    expect(done.results.map((r: { objective_value: number }) => r.objective_value)).toEqual([8, 8, 8, 8]);
    expect(done.agreement).toMatchObject({ objectives_agree: true, solutions_identical: false, alternative_optima: true, max_objective_delta: 0 });
  });

  it("gives unsupported/quadratic_terms rows to solvers that cannot take a QP, and those rows cost no quota", async () => {
    const problem = {
      name: "qp",
      variables: [
        { name: "x", lb: -10, ub: 10 },
        { name: "y", lb: -10, ub: 10 },
      ],
      objective: {
        terms: [{ var: "x", coef: -2 }],
        quadratic: [
          { var1: "x", var2: "x", coef: 1 },
          { var1: "y", var2: "y", coef: 1 },
        ],
      },
      constraints: [
        {
          name: "c",
          terms: [
            { var: "x", coef: 1 },
            { var: "y", coef: 1 },
          ],
          lb: 1,
        },
      ],
    };
    const before = await stack.services.quota.usedToday(stack.bootstrap.organizationId, Date.now());
    const res = await stack.api.post("/api/v2/solvers/compare", { problem, solver_names: ["cbc", "scip", "glpk", "highs"] });
    expect(res.status, res.text).toBe(202);
    expect(res.body.problem_class).toBe("QP");
    const byName = Object.fromEntries(res.body.results.map((r: { solver_name: string }) => [r.solver_name, r]));
    expect(byName.cbc).toMatchObject({ solver_status: "unsupported", unsupported_reason: "quadratic_terms" });
    expect(byName.glpk).toMatchObject({ solver_status: "unsupported", unsupported_reason: "quadratic_terms" });
    expect(byName.scip.solver_status).toBeNull();
    const after = await stack.services.quota.usedToday(stack.bootstrap.organizationId, Date.now());
    expect(after - before).toBe(2);
    const done = await pollUntil(stack.api, `/api/v2/solvers/compare/${res.body.id}`, isFinal);
    // min x² − 2x + y² s.t. x + y ≥ 1: x = 1, y = 0, objective −1.
    for (const r of done.results.filter((x: { solver_status: string }) => x.solver_status !== "unsupported")) {
      expect(r.solver_status).toBe("optimal");
      expect(r.objective_value).toBeCloseTo(-1, 5);
    }
    expect(done.results.find((r: { solver_name: string }) => r.solver_name === "cbc").execution_id).toBeNull();
  });

  it("answers 422 no_solver_can_run_this_model with each solver's reason, and an unknown name is not_registered", async () => {
    const problem = { variables: [{ name: "x" }], objective: { quadratic: [{ var1: "x", var2: "x", coef: 1 }] } };
    const res = await stack.api.post("/api/v2/solvers/compare", { problem, solver_names: ["cbc", "glpk", "gurobi"] });
    expect(res.status).toBe(422);
    expect(res.body.error_code).toBe("no_solver_can_run_this_model");
    expect(res.body.reasons).toEqual({ cbc: "quadratic_terms", glpk: "quadratic_terms", gurobi: "not_registered" });
  });

  it("refuses bad requests with the validation shape", async () => {
    const problem = { variables: [{ name: "x" }] };
    const cases = [
      { body: { solver_names: ["cbc"] }, loc: ["body", "problem"] },
      { body: { solver_names: ["cbc"], problem, project_id: "prj_x" }, loc: ["body", "problem"] },
      { body: { solver_names: [], problem }, loc: ["body", "solver_names"] },
      { body: { solver_names: ["a", "b", "c", "d", "e", "f", "g", "h", "i"], problem }, loc: ["body", "solver_names"] },
      { body: { solver_names: ["cbc", "cbc"], problem }, loc: ["body", "solver_names"] },
      { body: { solver_names: ["cbc"], problem, settings: { threads: 8 } }, loc: ["body", "settings"] },
    ];
    for (const c of cases) {
      const res = await stack.api.post("/api/v2/solvers/compare", c.body);
      expect(res.status, JSON.stringify(c.body)).toBe(422);
      expect(res.body.detail[0].loc).toEqual(c.loc);
    }
  });

  it("lists comparisons newest first with limit, offset and total, and hides them from another organization", async () => {
    const list = await stack.api.get("/api/v2/solvers/compare?limit=2&offset=1");
    expect(list.status).toBe(200);
    expect(list.body.comparisons).toHaveLength(2);
    expect(list.body.total).toBeGreaterThanOrEqual(7);
    const all = await stack.api.get("/api/v2/solvers/compare?limit=100");
    const ids = all.body.comparisons.map((c: { id: string }) => c.id);
    expect([...ids].sort().reverse()).toEqual(ids);
    expect(list.body.comparisons[0].id).toBe(ids[1]);
    expect(Object.keys(list.body.comparisons[0]).sort()).toEqual(["batch_id", "completed_at", "created_at", "id", "problem_name", "solver_names", "status"]);

    await signUp(stack.api.as(null), stack.mail, { organization_name: "Other", email: "cmp-other@example.test", password: "another password" });
    const login = await stack.api.as(null).post("/api/v2/auth/login", { email: "cmp-other@example.test", password: "another password" });
    const other = stack.api.as(login.body.access_token);
    expect((await other.get(`/api/v2/solvers/compare/${ids[0]}`)).status).toBe(404);
    expect((await other.post(`/api/v2/solvers/compare/${ids[0]}/cancel`)).status).toBe(404);
    expect((await other.get("/api/v2/solvers/compare")).body.total).toBe(0);
  });
});
