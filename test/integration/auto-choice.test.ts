import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { machineHas } from "../support/machine.js";
import { readInstance } from "../support/manifest.js";
import { isFinal, pollUntil } from "../support/poll.js";
import { startTestStack } from "../support/test-stack.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;
const ready = machineHas("glpsol");

/**
 * `auto` over the local stack (issue 29): the organization's finished comparisons are read from the table
 * through the recommender's port; the recommendation route and an `auto` solve name them as evidence.
 * Which solver wins is the machine's business: no timing is asserted, only that the choice is explained.
 */
describe.runIf(ready)("auto that learns from the organization's comparisons", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", LOCAL_WORKERS: "2" } });
  });
  afterAll(() => stack?.stop());

  it("judges by three finished comparisons of similar LPs, and says so on the execution and its result", async () => {
    const preview = await stack.api.post("/api/v2/solve/import/preview", { content: readInstance("afiro.mps"), filename: "afiro.mps" });
    expect(preview.status, preview.text).toBe(200);
    const problem = preview.body.problem;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await stack.api.post("/api/v2/solvers/compare", { problem, solver_names: ["highs", "glpk"] });
      expect(res.status, res.text).toBe(202);
      ids.push(res.body.id);
    }
    for (const id of ids) expect((await pollUntil(stack.api, `/api/v2/solvers/compare/${id}`, isFinal, { timeoutMs: 120_000 })).status).toBe("completed");

    const rows = problem.constraints.length;
    const rec = await stack.api.get(`/api/v2/solvers/recommendation?class=LP&variables=${problem.variables.length}&constraints=${rows}`);
    expect(rec.status, rec.text).toBe(200);
    expect(rec.body.basis).toBe("organization");
    expect([...rec.body.evidence.similar_problems].sort()).toEqual([...ids].sort());
    // Either the evidence decided, or it kept the default and says it lacked clear evidence.
    expect(rec.body.reason).toMatch(
      /^((HiGHS|GLPK) was fastest on \d of the 3 most similar models you compared|Kept HiGHS, the default for LP, for lack of clear evidence: on the 3 most similar models you compared) \(LP, /,
    );

    // The problem itself, and its file read by the model thread: the ranking `auto` acts on when solving it.
    const byProblem = await stack.api.post("/api/v2/solvers/recommendation", { problem });
    expect(byProblem.status, byProblem.text).toBe(200);
    const byFile = await stack.api.post("/api/v2/solvers/recommendation/import", { content: readInstance("afiro.mps"), filename: "afiro.mps" });
    expect(byFile.status, byFile.text).toBe(200);
    expect(byFile.body).toEqual(byProblem.body);

    const solved = await stack.api.post("/api/v2/solve/async", { problem, solver_name: "auto" });
    expect(solved.status, solved.text).toBe(202);
    const done = await pollUntil(stack.api, `/api/v2/models/executions/${solved.body.execution_id}`, isFinal, { timeoutMs: 120_000 });
    expect(done.auto_choice).toEqual({
      solver: byProblem.body.solver,
      basis: "organization",
      reason: byProblem.body.reason,
      evidence: byProblem.body.evidence,
    });
    expect(done.solver_name).toBe(byProblem.body.solver);
    expect(done.result.auto_choice).toEqual(done.auto_choice);
  });
});
