import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import type { LocalStack } from "../../bin/local/local-stack.js";
import { REPO_ROOT } from "./machine.js";

const run = promisify(execFile);

/**
 * Runs the worker program for exactly one job (`node --import tsx solver-container/src/worker.ts --job …`)
 * against a test stack's emulators, queues and blobs; `env` adds to (or overrides) what the stack gives it.
 */
export function runWorkerForJob(stack: Pick<LocalStack, "config">, job: object, env: Record<string, string> = {}) {
  const workerEnv = {
    ...process.env,
    AWS_ENDPOINT_URL: stack.config.awsEndpointUrl,
    AWS_ENDPOINT_URL_SQS: stack.config.sqsEndpointUrl,
    AWS_ACCESS_KEY_ID: "local",
    AWS_SECRET_ACCESS_KEY: "local",
    TABLE_NAME: stack.config.tableName,
    JOBS_QUEUE_URL: stack.config.jobsQueueUrl,
    WEBHOOKS_QUEUE_URL: stack.config.webhooksQueueUrl,
    BLOB_DIR: stack.config.blobDir,
    LOG_LEVEL: "INFO",
    ...env,
  } as NodeJS.ProcessEnv;
  return run(process.execPath, ["--import", "tsx", path.join(REPO_ROOT, "solver-container/src/worker.ts"), "--job", JSON.stringify(job)], {
    cwd: REPO_ROOT,
    env: workerEnv,
  });
}

/** True when a one-job worker's output says the job ran to its end. */
export const jobDone = (out: { stdout: string; stderr: string }): boolean => (out.stdout + out.stderr).includes('"message":"job done"');
