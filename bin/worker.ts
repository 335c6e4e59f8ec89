/**
 * `npm run worker -- [options]`: solver workers on this machine against whatever the environment names —
 * LocalStack, moto, or a real AWS account — the same program a Fargate task of the fleet runs
 * (`node <worker build>/worker.js`, built from these sources as the image is).
 *
 *   --workers N        how many worker processes (default 1); each runs one job at a time
 *   --env-file FILE    read KEY=VALUE settings from FILE first (the environment wins over it)
 *   --endpoint URL     AWS_ENDPOINT_URL: one endpoint for every AWS client (LocalStack, moto)
 *   --region R         AWS_REGION
 *   --table NAME       TABLE_NAME
 *   --queue URL        JOBS_QUEUE_URL: the jobs queue to poll
 *   --job JSON         run exactly this job, then exit (no polling)
 *
 * Everything else comes from the environment as in a task (README "Running a worker"). Ctrl-C stops
 * the workers: each finishes or hands back its job.
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { loadConfig } from "../functions/core/config.js";
import { ensureWorkerBuild } from "../solver-container/build.js";
import { LocalWorkerFleet } from "./local/worker-fleet.js";

const { values } = parseArgs({
  options: {
    workers: { type: "string", default: "1" },
    "env-file": { type: "string" },
    endpoint: { type: "string" },
    region: { type: "string" },
    table: { type: "string" },
    queue: { type: "string" },
    job: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
  allowPositionals: false,
});

if (values.help) {
  console.log("usage: npm run worker -- [--workers N] [--env-file FILE] [--endpoint URL] [--region R] [--table NAME] [--queue URL] [--job JSON]");
  process.exit(0);
}

const envFile = values["env-file"];
if (envFile) {
  if (!existsSync(envFile)) {
    console.error(`--env-file ${envFile}: no such file`);
    process.exit(2);
  }
  process.loadEnvFile(envFile); // sets only what the environment does not already have
}
const flags: Record<string, string | undefined> = {
  AWS_ENDPOINT_URL: values.endpoint,
  AWS_REGION: values.region,
  TABLE_NAME: values.table,
  JOBS_QUEUE_URL: values.queue,
};
for (const [key, value] of Object.entries(flags)) if (value !== undefined) process.env[key] = value;
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

// Refuse a bad setting here, with the setting's own words, rather than in every worker.
const config = loadConfig(process.env);
if (!values.job && !config.jobsQueueUrl) {
  console.error("JOBS_QUEUE_URL is not set (--queue URL): the worker has no queue to poll");
  process.exit(2);
}
const count = values.job ? 1 : Number(values.workers);
if (!Number.isInteger(count) || count < 1) {
  console.error(`--workers must be a positive whole number, got "${values.workers}"`);
  process.exit(2);
}

let jobExitCode = 0;
const fleet = new LocalWorkerFleet({
  build: await ensureWorkerBuild(),
  count,
  env: {},
  args: values.job ? ["--job", values.job] : [],
  replace: !values.job,
  stopTimeoutSeconds: config.workerStopTimeoutSeconds,
  onOutput: (line) => console.log(line),
  onExit: (pid, code, signal) => {
    jobExitCode = code ?? 1;
    console.error(`[worker ${pid}] exited (${signal ?? code})`);
  },
});
fleet.start();
const where = config.awsEndpointUrl ?? `AWS ${config.region}`;
if (!values.job) {
  void fleet
    .ready()
    .then((ok) => ok && console.error(`${count} worker(s) polling ${config.jobsQueueUrl} (table ${config.tableName}, ${where}). Ctrl-C stops them.`));
}

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.error(`${signal}: stopping the workers (each finishes or hands back its job)…`);
    void fleet.stop().then(() => process.exit(0));
  });
}
if (values.job) {
  await fleet.exited();
  process.exit(jobExitCode);
}
