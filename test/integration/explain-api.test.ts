import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPayload } from "../../functions/core/blob/blob-store.js";
import { modelNamesOf, type StoredModelNames } from "../../functions/core/jmodel/names.js";
import type { Problem } from "../../functions/core/problem/schema.js";
import { structureCountsOf } from "../../functions/core/solvers/recommendation/structure.js";
import { machineHas } from "../support/machine.js";
import { SUPPLY_JMODEL, SUPPLY_SHORT_DATA } from "../support/models.js";
import { isFinal, pollUntil } from "../support/poll.js";
import { startTestStack } from "../support/test-stack.js";
import { createTrigger, eventually, FINAL_RUN_STATUSES } from "../support/triggers.js";

/** x + y ≥ 5 with both in [0, 2]: infeasible through one row and two upper bounds. */
const INFEASIBLE_LP = {
  name: "short",
  variables: [
    { name: "x", lb: 0, ub: 2 },
    { name: "y", lb: 0, ub: 2 },
  ],
  objective: {
    terms: [
      { var: "x", coef: 1 },
      { var: "y", coef: 1 },
    ],
  },
  constraints: [
    {
      name: "enough",
      lb: 5,
      terms: [
        { var: "x", coef: 1 },
        { var: "y", coef: 1 },
      ],
    },
  ],
};

describe.runIf(machineHas("python_solvers"))("explaining an infeasible execution after the fact, through the API", () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  beforeAll(async () => {
    stack = await startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0" } });
  });
  afterAll(() => stack?.stop());

  it("a solve that ends infeasible is explained by a new execution with explain_infeasibility, linked both ways; an optimal one is refused with 409", async () => {
    const solved = await stack.api.post("/api/v2/solve", { problem: INFEASIBLE_LP, solver_name: "highs", settings: { time_limit_seconds: 20 } });
    expect(solved.status, solved.text).toBe(200);
    expect(solved.body.solver_status).toBe("infeasible");
    const originalId = solved.body.execution_id as string;

    const asked = await stack.api.post(`/api/v2/models/executions/${originalId}/explain`);
    expect(asked.status, asked.text).toBe(202);
    expect(asked.body).toMatchObject({
      status: "queued",
      solver_name: "highs",
      explains_execution_id: originalId,
      origin: { kind: "explanation", id: originalId },
      settings: { time_limit_seconds: 20, explain_infeasibility: true },
    });
    const original = await stack.api.get(`/api/v2/models/executions/${originalId}`);
    expect(original.body.explanation_execution_id).toBe(asked.body.id);

    const explained = await pollUntil(stack.api, `/api/v2/models/executions/${asked.body.id}`, isFinal, { timeoutMs: 60_000 });
    expect(explained).toMatchObject({ status: "completed", result: { status: "infeasible" } });
    // The row and both upper bounds: none of the three can go.
    expect(explained.result.infeasibility).toMatchObject({ method: "solver_iis", irreducible: true, verified: true });
    expect(explained.result.infeasibility.constraints).toEqual([{ name: "enough" }]);
    const bounds = explained.result.infeasibility.variable_bounds.map((b: { variable: string; bound: string }) => `${b.variable} ${b.bound}`).sort();
    expect(bounds).toEqual(["x upper", "y upper"]);

    const feasible = await stack.api.post("/api/v2/solve", { problem: { ...INFEASIBLE_LP, constraints: [] }, solver_name: "highs" });
    const refused = await stack.api.post(`/api/v2/models/executions/${feasible.body.execution_id}/explain`);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body).toMatchObject({ error: "execution_not_infeasible", solver_status: "optimal" });
    expect((await stack.api.post("/api/v2/models/executions/exe_unknown/explain")).status).toBe(404);
  }, 120_000);

  it("a JModel model made infeasible by its data: its explanation names the conflicting constraints by family and index", async () => {
    const doc = await stack.api.post("/api/v2/documents", {
      name: "supply",
      model: { kind: "jmodel", source: SUPPLY_JMODEL, data: SUPPLY_SHORT_DATA },
      solver_name: "highs",
    });
    expect(doc.status, doc.text).toBe(201);
    const run = await stack.api.post(`/api/v2/models/${doc.body.id}/execute`, {});
    expect(run.status, run.text).toBe(202);
    const ran = await pollUntil(stack.api, `/api/v2/models/executions/${run.body.execution_id}`, isFinal, { timeoutMs: 60_000 });
    expect(ran.result.status).toBe("infeasible");

    const asked = await stack.api.post(`/api/v2/models/executions/${ran.id}/explain`);
    expect(asked.status, asked.text).toBe(202);
    const orgId = stack.bootstrap.organizationId;
    const record = await stack.services.executionStore.get(orgId, asked.body.id);
    expect(record?.model_names).toBeDefined();
    const names = modelNamesOf(await loadPayload<StoredModelNames>(stack.services.blobs, record!.model_names!));
    expect(names.constraints.get("within_capacity[north]")).toEqual({ family: "within_capacity", index: ["north"] });
    expect(names.constraints.get("meet_demand")).toEqual({ family: "meet_demand", index: [] });
    expect(names.variables.get("make[south]")).toEqual({ family: "make", index: ["south"] });

    const explained = await pollUntil(stack.api, `/api/v2/models/executions/${asked.body.id}`, isFinal, { timeoutMs: 60_000 });
    expect(explained).toMatchObject({ status: "completed", result: { status: "infeasible", infeasibility: { irreducible: true, verified: true } } });
    // Both regions' capacities against the demand, in the modeller's words.
    const members = explained.result.infeasibility.constraints.map((c: { name: string; family?: string; index?: unknown[] }) => c);
    expect(members.sort((a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name))).toEqual([
      { name: "meet_demand", family: "meet_demand", index: [] },
      { name: "within_capacity[north]", family: "within_capacity", index: ["north"] },
      { name: "within_capacity[south]", family: "within_capacity", index: ["south"] },
    ]);
    for (const b of explained.result.infeasibility.variable_bounds) expect(b).toMatchObject({ family: "make", index: [expect.any(String)] });
  }, 120_000);

  it("a trigger run of a JModel document keeps the names: explaining its infeasible execution names the subset by family and index", async () => {
    const doc = await stack.api.post("/api/v2/documents", {
      name: "supply",
      model: { kind: "jmodel", source: SUPPLY_JMODEL, data: SUPPLY_SHORT_DATA },
      solver_name: "highs",
    });
    const trigger = await createTrigger(stack.api, { document_id: doc.body.id, version_id: doc.body.version_id });
    const queued = await stack.api.post(`/api/v2/triggers/${trigger.id}/run`);
    expect(queued.status, queued.text).toBe(202);
    const run = await eventually(
      async () => (await stack.api.get(`/api/v2/triggers/${trigger.id}/runs/${queued.body.run_id}`)).body,
      (r) => FINAL_RUN_STATUSES.includes(r.status),
    );
    expect(run.execution_id, JSON.stringify(run)).toEqual(expect.any(String));
    const asked = await stack.api.post(`/api/v2/models/executions/${run.execution_id}/explain`);
    expect(asked.status, asked.text).toBe(202);
    const explained = await pollUntil(stack.api, `/api/v2/models/executions/${asked.body.id}`, isFinal, { timeoutMs: 60_000 });
    expect(explained.result.infeasibility.constraints).toContainEqual({ name: "within_capacity[south]", family: "within_capacity", index: ["south"] });
  }, 120_000);

  it("a JModel project's comparison and every matrix row (compiled by the API or by its worker) name their rows' subsets by family and index", async () => {
    const project = await stack.api.post("/api/v2/projects", { name: "supply", jmodel_source: SUPPLY_JMODEL, default_data: SUPPLY_SHORT_DATA });
    expect(project.status, project.text).toBe(201);
    // Every comparison keeps its structure counts (what `auto` learns by), whether the model thread built its
    // problem at launch (a single comparison, a matrix's first row, stored then) or its worker compiled it.
    const structureKept = async (id: string) => {
      const record = (await stack.services.comparisonStore.get(stack.bootstrap.organizationId, id))!;
      const problem = await loadPayload<Problem>(stack.services.blobs, record.problem!);
      expect(record.structure_counts, `comparison ${id}`).toEqual(structureCountsOf(problem));
    };
    const namesOfExecution = async (id: string) => {
      const record = await stack.services.executionStore.get(stack.bootstrap.organizationId, id);
      expect(record?.model_names, `execution ${id} keeps the names`).toBeDefined();
      return modelNamesOf(await loadPayload<StoredModelNames>(stack.services.blobs, record!.model_names!));
    };

    const compared = await stack.api.post("/api/v2/solvers/compare", {
      project_id: project.body.id,
      solver_names: ["highs", "glpk"],
      settings: { explain_infeasibility: true },
    });
    expect(compared.status, compared.text).toBeLessThan(300);
    const done = await pollUntil(stack.api, `/api/v2/solvers/compare/${compared.body.id}`, isFinal, { timeoutMs: 60_000 });
    await structureKept(compared.body.id);
    for (const row of done.results) {
      expect(row, row.solver_name).toMatchObject({ solver_status: "infeasible" });
      const families = row.infeasibility.constraints.map((c: { family: string; index: string[] }) => `${c.family}${JSON.stringify(c.index)}`).sort();
      expect(families, row.solver_name).toEqual(["meet_demand[]", 'within_capacity["north"]', 'within_capacity["south"]']);
    }
    expect((await namesOfExecution(done.results[0].execution_id)).constraints.get("within_capacity[south]")).toEqual({
      family: "within_capacity",
      index: ["south"],
    });

    // A comparison row's execution is explained like any other: its problem is the comparison's.
    const asked = await stack.api.post(`/api/v2/models/executions/${done.results[0].execution_id}/explain`);
    expect(asked.status, asked.text).toBe(202);
    const explained = await pollUntil(stack.api, `/api/v2/models/executions/${asked.body.id}`, isFinal, { timeoutMs: 60_000 });
    expect(explained.result.infeasibility.constraints).toContainEqual({ name: "meet_demand", family: "meet_demand", index: [] });

    const roomy = await stack.api.post(`/api/v2/projects/${project.body.id}/datasets`, {
      name: "roomy",
      data: { ...SUPPLY_SHORT_DATA, REGIONS: ["east", "west"], capacity: { east: 9, west: 9 } },
    });
    const short = await stack.api.post(`/api/v2/projects/${project.body.id}/datasets`, { name: "short", data: SUPPLY_SHORT_DATA });
    const matrix = await stack.api.post("/api/v2/solvers/compare/batches", {
      project_id: project.body.id,
      dataset_ids: [roomy.body.id, short.body.id],
      solver_names: ["highs"],
      settings: { explain_infeasibility: true },
    });
    expect(matrix.status, matrix.text).toBeLessThan(300);
    const batch = await pollUntil(stack.api, `/api/v2/solvers/compare/batches/${matrix.body.batch_id}`, isFinal, { timeoutMs: 60_000 });
    for (const row of batch.rows) await structureKept(row.comparison_id);
    const [first, second] = batch.rows.map((r: { results: Record<string, any>[] }) => r.results[0]!);
    expect([first.solver_status, second.solver_status]).toEqual(["optimal", "infeasible"]);
    expect((await namesOfExecution(first.execution_id)).variables.get("make[west]")).toEqual({ family: "make", index: ["west"] });
    expect((await namesOfExecution(second.execution_id)).constraints.get("within_capacity[north]")).toEqual({
      family: "within_capacity",
      index: ["north"],
    });
    expect(second.infeasibility.constraints).toContainEqual({ name: "within_capacity[north]", family: "within_capacity", index: ["north"] });
  }, 120_000);
});
