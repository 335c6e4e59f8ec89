import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPayload } from "../../functions/core/blob/blob-store.js";
import { modelNamesOf, type StoredModelNames } from "../../functions/core/jmodel/names.js";
import { machineHas } from "../support/machine.js";
import { isFinal, pollUntil } from "../support/poll.js";
import { startTestStack } from "../support/test-stack.js";

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

/** Regional capacity against demand: infeasible when the data's capacities fall short of it. */
const SUPPLY_JMODEL = `set REGIONS;
param capacity{REGIONS} >= 0;
param demand >= 0;
var make{REGIONS} >= 0;
minimize cost: sum{r in REGIONS} make[r];
subject to within_capacity{r in REGIONS}: make[r] <= capacity[r];
subject to meet_demand: sum{r in REGIONS} make[r] >= demand;
`;
const SHORT_DATA = { REGIONS: ["north", "south"], capacity: { north: 2, south: 3 }, demand: 10 };

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

    const explained = await pollUntil(stack.api, `/api/v2/models/executions/${asked.body.id}`, isFinal, 60_000);
    expect(explained).toMatchObject({ status: "completed", result: { status: "infeasible" } });

    const feasible = await stack.api.post("/api/v2/solve", { problem: { ...INFEASIBLE_LP, constraints: [] }, solver_name: "highs" });
    const refused = await stack.api.post(`/api/v2/models/executions/${feasible.body.execution_id}/explain`);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body).toMatchObject({ error: "execution_not_infeasible", solver_status: "optimal" });
    expect((await stack.api.post("/api/v2/models/executions/exe_unknown/explain")).status).toBe(404);
  }, 120_000);

  it("a JModel document run made infeasible by its data keeps each name's family and index; its explanation shares them", async () => {
    const doc = await stack.api.post("/api/v2/documents", {
      name: "supply",
      model: { kind: "jmodel", source: SUPPLY_JMODEL, data: SHORT_DATA },
      solver_name: "highs",
    });
    expect(doc.status, doc.text).toBe(201);
    const run = await stack.api.post(`/api/v2/models/${doc.body.id}/execute`, {});
    expect(run.status, run.text).toBe(202);
    const ran = await pollUntil(stack.api, `/api/v2/models/executions/${run.body.execution_id}`, isFinal, 60_000);
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

    const explained = await pollUntil(stack.api, `/api/v2/models/executions/${asked.body.id}`, isFinal, 60_000);
    expect(explained).toMatchObject({ status: "completed", result: { status: "infeasible" } });
  }, 120_000);

  it("a JModel project's comparison and every matrix row (compiled by the API or by its worker) give their rows' executions the names", async () => {
    const project = await stack.api.post("/api/v2/projects", { name: "supply", jmodel_source: SUPPLY_JMODEL, default_data: SHORT_DATA });
    expect(project.status, project.text).toBe(201);
    const namesOfExecution = async (id: string) => {
      const record = await stack.services.executionStore.get(stack.bootstrap.organizationId, id);
      expect(record?.model_names, `execution ${id} keeps the names`).toBeDefined();
      return modelNamesOf(await loadPayload<StoredModelNames>(stack.services.blobs, record!.model_names!));
    };

    const compared = await stack.api.post("/api/v2/solvers/compare", { project_id: project.body.id, solver_names: ["highs"] });
    expect(compared.status, compared.text).toBeLessThan(300);
    const done = await pollUntil(stack.api, `/api/v2/solvers/compare/${compared.body.id}`, isFinal, 60_000);
    expect(done.results[0]).toMatchObject({ solver_status: "infeasible" });
    expect((await namesOfExecution(done.results[0].execution_id)).constraints.get("within_capacity[south]")).toEqual({
      family: "within_capacity",
      index: ["south"],
    });

    const roomy = await stack.api.post(`/api/v2/projects/${project.body.id}/datasets`, {
      name: "roomy",
      data: { ...SHORT_DATA, REGIONS: ["east", "west"], capacity: { east: 9, west: 9 } },
    });
    const short = await stack.api.post(`/api/v2/projects/${project.body.id}/datasets`, { name: "short", data: SHORT_DATA });
    const matrix = await stack.api.post("/api/v2/solvers/compare/batches", {
      project_id: project.body.id,
      dataset_ids: [roomy.body.id, short.body.id],
      solver_names: ["highs"],
    });
    expect(matrix.status, matrix.text).toBeLessThan(300);
    const batch = await pollUntil(stack.api, `/api/v2/solvers/compare/batches/${matrix.body.batch_id}`, isFinal, 60_000);
    const [first, second] = batch.rows.map((r: { results: { execution_id: string; solver_status: string }[] }) => r.results[0]!);
    expect([first.solver_status, second.solver_status]).toEqual(["optimal", "infeasible"]);
    expect((await namesOfExecution(first.execution_id)).variables.get("make[west]")).toEqual({ family: "make", index: ["west"] });
    expect((await namesOfExecution(second.execution_id)).constraints.get("within_capacity[north]")).toEqual({
      family: "within_capacity",
      index: ["north"],
    });
  }, 120_000);
});
