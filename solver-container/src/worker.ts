/**
 * The solver container's entry: one job in, its results in DynamoDB, exit. A Fargate task and the local
 * stack run the same command:
 *
 *   node --import tsx solver-container/src/worker.ts --job '{"type":"comparison","id":"cmp_…","org_id":"org_…"}'
 *   (or the JOB environment variable, which the dispatcher's RunTask override sets)
 *
 * `--standby` is the local stack's warm pool: the worker starts, warms its solvers, then reads the one job
 * it will run from stdin — Fargate's own start-up plays that part in AWS.
 *
 * Exit code 0: the job ran (or was already done or held elsewhere); 1: it failed with an error (the
 * item is marked failed first); 2: bad invocation.
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../../functions/core/config.js";
import { createLogger } from "../../functions/core/logger.js";
import { JobMessageSchema, type JobMessage } from "../../functions/core/queue/messages.js";
import { createServices } from "../../functions/core/services.js";
import { runComparisonJob } from "./jobs/comparison.js";
import { runExecutionJob } from "./jobs/execution.js";
import { runTriggerRunJob } from "./jobs/trigger-run.js";
import { describeMachine, workerIdentity, type WorkerRuntime } from "./runtime.js";
import { createSolverToolkit } from "./solver-toolkit.js";

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

export async function runJob(rt: WorkerRuntime, job: JobMessage): Promise<void> {
  switch (job.type) {
    case "execution":
      return runExecutionJob(rt, job.org_id, job.id);
    case "comparison":
      return runComparisonJob(rt, job.org_id, job.id);
    case "trigger_run":
      if (!job.trigger_id) throw new Error("a trigger_run job names its trigger_id");
      return runTriggerRunJob(rt, job.org_id, job.trigger_id, job.id);
  }
}

async function readStdinLine(): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", (chunk: string) => {
      buffer += chunk;
      const nl = buffer.indexOf("\n");
      if (nl >= 0) {
        process.stdin.pause();
        resolve(buffer.slice(0, nl));
      }
    });
    process.stdin.on("end", () => resolve(buffer));
    process.stdin.on("error", reject);
  });
}

/** Records the fleet's solvers when no worker has done so recently (the API reads the record). */
async function reportInventory(rt: WorkerRuntime): Promise<void> {
  const { services } = rt;
  const current = await services.inventory.read(services.clock.now());
  const stale = !current.reported_at || services.clock.now() - Date.parse(current.reported_at) > 10 * 60_000;
  if (stale) await services.inventory.report(await rt.toolkit.inventory(), rt.workerId, services.clock.now());
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { job: { type: "string" }, standby: { type: "boolean" } } });
  const logger = createLogger("incumbent-worker");
  const config = loadConfig(process.env);
  const services = createServices({ config, jwtSecret: "", logger });
  const toolkit = await createSolverToolkit(config, { warm: true });
  // Stopped (StopTask, the local stack shutting down): stop the Python host and its solves first, so
  // nothing this worker started outlives it.
  let working = false;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      // A standby worker stopped before any job is routine; one stopped mid-job leaves it to the sweeper.
      if (working) logger.warn("stopped by signal mid-job; the sweeper will fail the job when its lease lapses", { signal });
      else logger.info("stopped by signal while idle", { signal });
      void toolkit.close().finally(() => process.exit(128 + (signal === "SIGTERM" ? 15 : 2)));
    });
  }
  const rt: WorkerRuntime = { services, toolkit, workerId: workerIdentity(), machineNote: describeMachine(config.machineNote) };
  try {
    let raw = values.job ?? process.env.JOB;
    if (values.standby) {
      // Idle time before the job arrives: probing the solvers (each adapter keeps its version) and the
      // inventory report cost the job nothing here.
      await toolkit.inventory().catch(() => undefined);
      await reportInventory(rt).catch((error) => logger.warn("inventory report failed", { error }));
      // The SDK sets up each command's machinery on its first use: pay that for UpdateItem (the lease,
      // the result) now, with a conditional write that matches no item and so writes nothing.
      await services.table
        .update({
          Key: { pk: "WARMUP", sk: "WARMUP" },
          UpdateExpression: "SET warm = :t",
          ConditionExpression: "attribute_exists(pk)",
          ExpressionAttributeValues: { ":t": true },
        })
        .catch(() => undefined);
      process.stdout.write(`${JSON.stringify({ event: "ready", pid: process.pid })}\n`);
      raw = await readStdinLine();
    }
    const parsed = JobMessageSchema.safeParse(raw ? JSON.parse(raw) : undefined);
    if (!parsed.success) {
      logger.error("bad job", { raw });
      return 2;
    }
    logger.appendKeys({ job_id: parsed.data.id, job_type: parsed.data.type, org_id: parsed.data.org_id, worker_id: rt.workerId });
    const started = Date.now();
    working = true;
    await runJob(rt, parsed.data);
    if (!values.standby) await reportInventory(rt).catch((error) => logger.warn("inventory report failed", { error }));
    logger.info("job done", { ms: Date.now() - started });
    return 0;
  } catch (error) {
    logger.error("job failed", { error });
    return 1;
  } finally {
    await toolkit.close().catch(() => undefined);
  }
}

process.exitCode = await main();
