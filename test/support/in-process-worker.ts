import type { InventoryEntry } from "../../functions/core/solvers/inventory.js";
import { bandQueueUrls } from "../../functions/core/queue/sqs.js";
import { handBackJob } from "../../solver-container/src/hand-back.js";
import { runJob } from "../../solver-container/src/jobs/run-job.js";
import { QueueWorker } from "../../solver-container/src/queue-worker.js";
import type { WorkerRuntime } from "../../solver-container/src/runtime.js";
import { TaskProtection } from "../../solver-container/src/task-protection.js";
import type { SolverToolkit } from "../../solver-container/src/toolkit.js";
import type { startTestStack } from "./test-stack.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;

/**
 * A solver worker in the test's own process, with a toolkit of the test's choice (a fake solver that
 * answers what the test needs), polling the stack's queues with the same loop and jobs as the worker
 * program: every path a job takes (solve, comparison and matrix rows, trigger runs, document runs) runs
 * as in production, only the solvers are the test's. Start the stack with LOCAL_WORKERS=0.
 */
export function startInProcessWorker(stack: Stack, toolkit: SolverToolkit): { stop(): Promise<void> } {
  const { services, config } = stack;
  const runtime: WorkerRuntime = {
    services,
    toolkit,
    workerId: `in-process-test-worker:${process.pid}`,
    machineNote: "in-process test worker",
    // The plain solve's wait hears the final write at once, as from the fleet's announcements.
    announceFinal: (id, outcome) => services.finalSignals.signal(id, outcome),
  };
  const leaseMs = config.jobLeaseSeconds * 1000;
  const worker = new QueueWorker({
    sqs: services.sqs,
    queueUrls: bandQueueUrls(config),
    pollSeconds: 1,
    claimSeconds: 20,
    visibilitySeconds: Math.max(60, config.jobLeaseSeconds + 2 * config.sweepIntervalSeconds),
    heartbeatMs: Math.max(200, Math.floor(leaseMs / 3)),
    stopTimeoutMs: 5000,
    handBackReserveMs: 1000,
    protection: new TaskProtection({ agentUri: "", expiresInMinutes: 1, onError: () => undefined }),
    logger: services.logger,
    runJob: (job) => runJob(runtime, job),
    handBack: (job) => handBackJob(runtime, job),
  });
  const running = worker.run();
  return {
    async stop() {
      await worker.stop();
      await running;
    },
  };
}

/** A toolkit over one adapter-like solve function, listing the given solvers as this machine's. */
export function toolkitOf(solve: SolverToolkit["solve"], solvers: InventoryEntry[]): SolverToolkit {
  return {
    solve,
    inventory: async () => solvers,
    prepare: async () => undefined,
    close: async () => undefined,
  };
}
