import type { FairShare } from "./fair-share.js";
import type { JobMessage } from "./messages.js";

/** Marks a recorded work item failed because its job was refused; `reason` starts `enqueue_failed: `. */
export type MarkEnqueueFailed = (reason: string) => Promise<unknown>;

/**
 * The launchers' last step (executions, comparisons, matrix rows, trigger runs): sends a recorded work
 * item's job (or parks it for its organization's fair share, queue/fair-share.ts). A refused send
 * leaves an item no worker will ever take, so it is marked failed with `enqueue_failed: …` first, and
 * the refusal is thrown on (the caller answers 503 enqueue_failed: the item exists and says why).
 * `job` may be worked out here (a trigger run's band reads the priority budget): a failure to work it
 * out fails the item the same way, since its job is not sent either.
 */
export async function enqueueOrFail(
  queue: Pick<FairShare, "dispatch">,
  job: JobMessage | (() => Promise<JobMessage>),
  markFailed: MarkEnqueueFailed,
): Promise<void> {
  try {
    await queue.dispatch(typeof job === "function" ? await job() : job);
  } catch (error) {
    await markFailed(`enqueue_failed: ${(error as Error).message}`);
    throw error;
  }
}
