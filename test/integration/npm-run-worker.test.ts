import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMotoBackend, type Backend } from "../support/backends.js";
import { machineHas, REPO_ROOT } from "../support/machine.js";
import { startTestStack } from "../support/test-stack.js";
import { stopProcessGroup } from "../e2e/target.js";

/**
 * README "Running a worker": `npm run worker -- --endpoint … --queue … --table …` runs the fleet's worker
 * against whatever the flags and environment name. Here the service's table and queues live in moto
 * (as they would in LocalStack or an AWS account), the API is a local stack with no workers of its own,
 * and the only worker is the one `npm run worker` starts.
 */
const run = machineHas("moto_server", "cbc");

describe.runIf(run)("npm run worker", () => {
  let moto: Backend;
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  beforeAll(async () => {
    moto = await startMotoBackend();
    // The stack's own clients take credentials from the SDK's chain, as they would in an account.
    process.env.AWS_ACCESS_KEY_ID ??= "testing";
    process.env.AWS_SECRET_ACCESS_KEY ??= "testing";
    stack = await startTestStack({
      env: {
        AWS_ENDPOINT_URL: moto.endpoint,
        TABLE_NAME: `incumbent-worker-${process.pid}`,
        LOCAL_WORKERS: "0",
        INSTANCE_RATE_LIMIT_PER_MINUTE: "0",
      },
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await moto?.stop();
  });

  it("polls the queue the flags name, solves what the API queues there, and stops on Ctrl-C", async () => {
    const child = spawn(
      "npm",
      ["run", "worker", "--", "--endpoint", moto.endpoint, "--queue", stack.config.jobsQueueUrl, "--table", stack.config.tableName, "--workers", "1"],
      {
        cwd: REPO_ROOT,
        // What a task definition would give the worker besides the flags: credentials, where blobs go.
        // (moto is served on one thread here, which a 20 s long poll would hold: the worker polls briefly instead.)
        env: {
          ...process.env,
          AWS_ACCESS_KEY_ID: "testing",
          AWS_SECRET_ACCESS_KEY: "testing",
          BLOB_DIR: stack.config.blobDir,
          WORKER_POLL_SECONDS: "0",
          LOG_LEVEL: "WARN",
        },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      },
    );
    let output = "";
    child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
    try {
      const deadline = Date.now() + 90_000;
      while (!/1 worker\(s\) polling/.test(output) && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
      expect(output).toContain(`1 worker(s) polling ${stack.config.jobsQueueUrl} (table ${stack.config.tableName}, ${moto.endpoint})`);

      const res = await stack.api.post("/api/v2/solve", {
        problem: { sense: "maximize", variables: [{ name: "x", type: "integer", ub: 3.5 }], objective: { terms: [{ var: "x", coef: 2 }] } },
        solver_name: "cbc",
      });
      expect(res.status, `${res.text}\n${output}`).toBe(200);
      expect(res.body).toMatchObject({ solver_name: "cbc", solver_status: "optimal", objective_value: 6 });
    } finally {
      // The assertion below is that the workers stop on their own: a minute before SIGKILL, for a loaded machine.
      await stopProcessGroup(child, { graceMs: 60_000 });
    }
    expect(output).toContain("stopping the workers");
    expect(output).toMatch(/\[worker \d+\] exited \(0\)/); // stopped, not killed
  }, 210_000);
});
