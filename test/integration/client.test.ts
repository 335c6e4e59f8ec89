import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ComparisonStreamEvent,
  type ExecutionStreamEvent,
  IncumbentClient,
  IncumbentError,
  unwrap,
  verifyWebhookSignature,
} from "../../clients/typescript/src/index.js";
import { ComparisonDetailSchema } from "../../functions/core/comparisons/schemas.js";
import { ExecutionViewSchema } from "../../functions/core/executions/schemas.js";
import { INFEASIBLE_LP, KNAPSACK_MPS, KNAPSACK_OPTIMUM } from "../support/client-models.js";
import { startTestStack } from "../support/test-stack.js";
import { eventually, KNAPSACK_DATA, KNAPSACK_SOURCE } from "../support/triggers.js";
import { verifyIncumbentSignature, WebhookReceiver } from "../support/webhook-receiver.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;

/** The typed client (clients/typescript) against the local stack: what raw HTTP makes hard, done once. */
describe("@incumbent/client against the local stack", () => {
  let stack: Stack;
  let client: IncumbentClient;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    stack = await startTestStack({ env: { MODELS_READ_RATE_LIMIT_PER_MINUTE: "0" } });
    client = new IncumbentClient({ baseUrl: stack.url, credential: stack.apiKey });
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver.stop();
  });

  it("uploads a file, queues a solve and streams its progress to a final view the document describes", async () => {
    const preview = await client.previewFile({ content: new TextEncoder().encode(KNAPSACK_MPS), filename: "knapsack.mps" });
    expect(preview.format).toBe("mps");
    expect(preview.stats).toMatchObject({ problem_class: "MILP", variable_count: 3, constraint_count: 1 });

    const queued = await client.submit({ problem: preview.problem, solver_name: "highs" });
    const events: ExecutionStreamEvent[] = [];
    for await (const e of client.executionEvents(queued.execution_id)) events.push(e);

    const final = events.at(-1);
    expect(final?.event).toBe("final");
    if (final?.event !== "final") throw new Error("no final event");
    // The stream's final is the execution view the GET route answers: typed so, and so at run time.
    expect(() => ExecutionViewSchema.parse(final.data)).not.toThrow();
    expect(final.data.id).toBe(queued.execution_id);
    expect(final.data.result?.status).toBe("optimal");
    expect(final.data.result?.objective_value).toBeCloseTo(KNAPSACK_OPTIMUM, 6);
    expect(events.filter((e) => e.event === "final")).toHaveLength(1);
    // The stream carries the solver's log as the log route pages it (how many lines depends on the
    // solver's build: native HiGHS logs, its WebAssembly build may not), each line once, in order.
    const logged = events.flatMap((e) => (e.event === "log" ? [e.data] : []));
    expect(logged.map((l) => l.offset)).toEqual(logged.map((_, i) => i));
    const page = await unwrap(
      client.api.GET("/api/v2/models/executions/{execution_id}/log", { params: { path: { execution_id: queued.execution_id }, query: {} } }),
    );
    expect(logged.map((l) => l.line)).toEqual(page.lines);

    const waited = await client.waitForExecution(queued.execution_id, { intervalMs: 100 });
    expect(waited.result?.objective_value).toBe(final.data.result?.objective_value);
  });

  it("sends a file given as a Blob, and a plain solve answers the verdict", async () => {
    const preview = await client.previewFile({ content: new Blob([INFEASIBLE_LP]), filename: "infeasible.lp" });
    expect(preview.format).toBe("lp");
    const answer = await client.solve({ problem: preview.problem, solver_name: "highs" });
    expect(answer.status).toBe("infeasible");
  });

  it("runs a comparison and streams every row, named by its solver, to the final table", async () => {
    const { problem } = await client.previewFile({ content: KNAPSACK_MPS, filename: "knapsack.mps" });
    const launched = await client.compare({ problem, solver_names: ["highs", "jaos"] });
    expect(launched.results.map((r) => r.solver_name)).toEqual(["highs", "jaos"]);
    const events: ComparisonStreamEvent[] = [];
    for await (const e of client.comparisonEvents(launched.id)) events.push(e);
    const final = events.at(-1);
    if (final?.event !== "final") throw new Error("no final event");
    expect(() => ComparisonDetailSchema.parse(final.data)).not.toThrow();
    expect(final.data.status).toBe("completed");
    expect(final.data.results.map((r) => r.solver_status)).toEqual(["optimal", "optimal"]);
    // Each progress point and log line names the row it belongs to.
    const solverOf = new Map(final.data.results.map((r) => [r.execution_id, r.solver_name]));
    const named = events.flatMap((e) => (e.event === "final" ? [] : [e.data]));
    expect(named.some((d) => d.solver_name === "highs")).toBe(true);
    for (const d of named) expect(solverOf.get(d.execution_id)).toBe(d.solver_name);
    const waited = await client.waitForComparison(launched.id, { intervalMs: 100 });
    expect(waited.agreement?.objectives_agree).toBe(true);
  });

  it("answers an error as an IncumbentError with the status, the error name and the service's detail", async () => {
    const missing = await client.execution("exe_missing").catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(IncumbentError);
    expect((missing as IncumbentError).status).toBe(404);
    expect((missing as IncumbentError).code).toBe("not_found");
    // A stream that cannot open fails the same way before the first event.
    const stream = client.executionEvents("exe_missing");
    await expect(stream.next()).rejects.toMatchObject({ status: 404, code: "not_found" });
    const anonymous = new IncumbentClient({ baseUrl: stack.url });
    await expect(unwrap(anonymous.api.GET("/api/v2/keys"))).rejects.toMatchObject({ status: 401, code: "unauthorized" });
  });

  it("fires a trigger with its secret in the header or in the body, and verifies the signed webhook", async () => {
    const document = await unwrap(
      client.api.POST("/api/v2/documents", {
        body: { name: "knapsack", model: { kind: "jmodel", source: KNAPSACK_SOURCE, data: KNAPSACK_DATA }, solver_name: "highs" },
      }),
    );
    const webhookSecret = "client-test-webhook-secret";
    const trigger = await unwrap(
      client.api.POST("/api/v2/triggers", {
        body: {
          name: "client test",
          document_id: document.id,
          version_id: document.version_id,
          override_schema: [{ name: "capacity", type: "number", required: false, default: 5 }],
          webhook_url: receiver.url,
          webhook_secret: webhookSecret,
        },
      }),
    );
    const secret = trigger.trigger_secret;
    if (!secret) throw new Error("no trigger secret in the create response");

    const byHeader = await client.fireTrigger(trigger.id, { secret, overrideData: { capacity: 7 } });
    const byBody = await client.fireTrigger(trigger.id, { secret, overrideData: { capacity: 9 }, secretIn: "body" });
    expect([byHeader.status, byBody.status]).toEqual(["queued", "queued"]);
    await expect(client.fireTrigger(trigger.id, { secret: "inc_trg_wrong" })).rejects.toMatchObject({ status: 401 });

    const runs = await eventually(
      () => unwrap(client.api.GET("/api/v2/triggers/{trigger_id}/runs", { params: { path: { trigger_id: trigger.id } } })),
      (page) => page.items.filter((r) => r.status === "completed").length === 2,
      { timeoutMs: 60_000, everyMs: 200 },
    );
    const objectives = Object.fromEntries(runs.items.map((r) => [r.id, (r.result_data as { objective_value?: number } | null)?.objective_value]));
    expect(objectives[byHeader.run_id]).toBe(9);
    expect(objectives[byBody.run_id]).toBe(12);

    const deliveries = await receiver.waitFor(2, 60_000);
    for (const delivery of deliveries) {
      const signature = delivery.headers["x-incumbent-signature"] as string;
      // The receiver's own check (node:crypto) and the client's (Web Crypto) agree on every delivery.
      expect(verifyIncumbentSignature(delivery, webhookSecret)).toBe(true);
      expect(await verifyWebhookSignature({ rawBody: delivery.raw, signature, secret: webhookSecret })).toBe(true);
      expect(await verifyWebhookSignature({ rawBody: delivery.raw, signature, secret: "another secret" })).toBe(false);
      expect(await verifyWebhookSignature({ rawBody: `${delivery.raw} `, signature, secret: webhookSecret })).toBe(false);
      expect(await verifyWebhookSignature({ rawBody: delivery.raw, signature: undefined, secret: webhookSecret })).toBe(false);
    }
  });
});
