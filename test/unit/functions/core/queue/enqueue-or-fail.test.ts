import { describe, expect, it } from "vitest";
import type { JobMessage } from "../../../../../functions/core/queue/messages.js";
import { enqueueOrFail } from "../../../../../functions/core/queue/enqueue-or-fail.js";

/** The launchers' last step against an in-memory queue: sent, or the item marked failed and the refusal thrown on. */

function fakeQueue(refusal: Error | null = null) {
  const sent: JobMessage[] = [];
  return {
    sent,
    async dispatch(job: JobMessage) {
      if (refusal) throw refusal;
      sent.push(job);
      return "queued" as const;
    },
  };
}

const JOB: JobMessage = { type: "execution", id: "exe_1", org_id: "org_1", priority: 0 };

describe("enqueueOrFail", () => {
  it("sends the job and marks nothing", async () => {
    const queue = fakeQueue();
    const failed: string[] = [];
    await enqueueOrFail(queue, JOB, async (reason) => failed.push(reason));
    expect(queue.sent).toEqual([JOB]);
    expect(failed).toEqual([]);
  });

  it("marks the item failed with enqueue_failed and the broker's words, then throws the refusal on", async () => {
    const refusal = new Error("The job broker refused the job (ServiceUnavailable); retry shortly.");
    const failed: string[] = [];
    await expect(enqueueOrFail(fakeQueue(refusal), JOB, async (reason) => failed.push(reason))).rejects.toBe(refusal);
    expect(failed).toEqual(["enqueue_failed: The job broker refused the job (ServiceUnavailable); retry shortly."]);
  });

  it("works a lazy job out first, and fails the item the same way when that fails (its job is not sent either)", async () => {
    const queue = fakeQueue();
    await enqueueOrFail(
      queue,
      async () => ({ ...JOB, priority: 5 }),
      async () => undefined,
    );
    expect(queue.sent).toEqual([{ ...JOB, priority: 5 }]);

    const failed: string[] = [];
    const budgetDown = new Error("table unavailable");
    const refused = enqueueOrFail(
      queue,
      async () => {
        throw budgetDown;
      },
      async (reason) => failed.push(reason),
    );
    await expect(refused).rejects.toBe(budgetDown);
    expect(failed).toEqual(["enqueue_failed: table unavailable"]);
    expect(queue.sent).toHaveLength(1);
  });

  it("throws the refusal even when marking the item failed did not take (the item had moved on)", async () => {
    const refusal = new Error("refused");
    await expect(enqueueOrFail(fakeQueue(refusal), JOB, async () => null)).rejects.toBe(refusal);
  });
});
