/**
 * `npm run bench -- triggers [runs]`: fire → webhook-received latency on the local stack, beside the
 * solver's own time for the same model. Fires one at a time (each run measured alone, not queued
 * behind others) at a small knapsack trigger whose webhook is a receiver on 127.0.0.1; the difference
 * between the columns is what the service adds: HTTP, DynamoDB, the jobs queue, a worker process
 * taking the job, compiling the model, the webhooks queue and the signed POST.
 */
import { startTestStack } from "../support/test-stack.js";
import { createKnapsackDocument, createTrigger } from "../support/triggers.js";
import { WebhookReceiver } from "../support/webhook-receiver.js";

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
};

export default async function bench(args: string[]): Promise<void> {
  process.env.LOG_LEVEL ??= "ERROR"; // the stack's own logger reads it; the table is the output
  const runs = Math.max(1, Number(args[0] ?? 20));
  const solver = args[1] ?? "cbc";
  const receiver = await new WebhookReceiver([200]).start();
  const stack = await startTestStack({
    env: { LOG_LEVEL: "ERROR", WORKER_LOG_LEVEL: "ERROR", INSTANCE_RATE_LIMIT_PER_MINUTE: "100000", TRIGGER_FIRE_RATE_LIMIT_PER_MINUTE: "100000" },
  });
  try {
    const doc = await createKnapsackDocument(stack.api, solver);
    const trigger = await createTrigger(stack.api, {
      document_id: doc.documentId,
      version_id: doc.versionId,
      override_schema: [{ name: "capacity", type: "number", required: false, default: 5 }],
      webhook_url: receiver.url,
      webhook_secret: "bench-webhook-secret-value",
    });
    const fireApi = stack.api.as(trigger.secret);
    const latency: number[] = [];
    const solverSeconds: number[] = [];
    const wallMs: number[] = [];
    const toStart: number[] = [];
    const running: number[] = [];
    const toReceiver: number[] = [];
    // One warm-up run: the first job also pays for the first standby worker's start.
    for (let i = -1; i < runs; i++) {
      const before = receiver.requests.length;
      const started = performance.now();
      const firedAt = Date.now();
      const res = await fireApi.post(`/api/v2/triggers/${trigger.id}/fire`, { override_data: { capacity: 5 + (Math.max(i, 0) % 5) } });
      if (res.status !== 202) throw new Error(`fire answered ${res.status}: ${res.text}`);
      const [hook] = (await receiver.waitFor(before + 1, 120_000)).slice(before);
      const elapsed = performance.now() - started;
      if (hook!.body.run_id !== res.body.run_id) throw new Error("webhooks arrived out of order");
      if (i < 0) continue;
      const receivedAt = hook!.at;
      const detail = (await stack.api.get(`/api/v2/triggers/${trigger.id}/runs/${res.body.run_id}`)).body;
      toStart.push(Date.parse(detail.started_at) - firedAt);
      running.push(Date.parse(detail.completed_at) - Date.parse(detail.started_at));
      toReceiver.push(receivedAt - Date.parse(detail.completed_at));
      latency.push(elapsed);
      solverSeconds.push((hook!.body.data.result?.solve_time_seconds ?? 0) * 1000);
      wallMs.push(hook!.body.data.result?.wall_time_ms ?? 0);
    }
    const row = (name: string, values: number[]) =>
      `${name.padEnd(50)} ${quantile(values, 0.5).toFixed(1).padStart(9)} ${quantile(values, 0.99).toFixed(1).padStart(9)}`;
    const overhead = latency.map((l, i) => l - wallMs[i]!);
    console.log(`\nTrigger fire → webhook received, ${runs} runs one at a time, knapsack (4 binaries) on ${solver}, local stack`);
    console.log(`${"".padEnd(50)} ${"p50 ms".padStart(9)} ${"p99 ms".padStart(9)}`);
    console.log(row("fire → webhook received", latency));
    console.log(row("solver's own time (solve_time_seconds)", solverSeconds));
    console.log(row("solver call, wall (wall_time_ms)", wallMs));
    console.log(row("added by the service (latency − solver wall)", overhead));
    console.log("  of which:");
    console.log(row("    fire → a worker holds the run (queue, task)", toStart));
    console.log(row("    run held → run final (compile, charge, solve)", running));
    console.log(row("    run final → webhook received (queue, POST)", toReceiver));
    console.log(`ratio fire→webhook / solver call (p50): ${(quantile(latency, 0.5) / Math.max(quantile(wallMs, 0.5), 0.001)).toFixed(1)}×`);
  } finally {
    await stack.stop();
    await receiver.stop();
  }
}
