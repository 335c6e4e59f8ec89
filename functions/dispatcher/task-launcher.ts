import type { JobMessage } from "../core/queue/messages.js";

/**
 * Where a solve job runs: a Fargate task in AWS (ECS RunTask), a child process locally. The dispatcher
 * only knows this port.
 */
export interface TaskLauncher {
  /** Starts a task for the job; throws when it cannot (the message then returns to the queue). */
  launch(job: JobMessage): Promise<void>;
}

/** Thrown when the configured maximum of running tasks is reached: the job waits in the queue. */
export class CapacityReached extends Error {
  constructor(running: number, max: number) {
    super(`${running} solver tasks running, the maximum is ${max}`);
    this.name = "CapacityReached";
  }
}
