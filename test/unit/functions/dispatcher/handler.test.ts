import { describe, expect, it } from "vitest";
import { createLogger } from "../../../../functions/core/logger.js";
import type { JobMessage } from "../../../../functions/core/queue/messages.js";
import { createDispatcher } from "../../../../functions/dispatcher/handler.js";
import { CapacityReached, type TaskLauncher } from "../../../../functions/dispatcher/task-launcher.js";

const job = (id: string): JobMessage => ({ type: "execution", id, org_id: "org_1" });
const event = (...jobs: JobMessage[]) => ({ Records: jobs.map((j) => ({ messageId: `m-${j.id}`, body: JSON.stringify(j) })) });

/** A launcher whose fleet holds `slots` tasks. */
function fleet(slots: number): TaskLauncher & { launched: string[] } {
  const launched: string[] = [];
  return {
    launched,
    async launch(j) {
      if (launched.length >= slots) throw new CapacityReached(launched.length, slots);
      launched.push(j.id);
    },
  };
}

describe("dispatcher: a full fleet", () => {
  it("sends waiting jobs again with a delay instead of failing them towards the DLQ", async () => {
    const launcher = fleet(1);
    const requeued: string[] = [];
    const dispatch = createDispatcher(launcher, createLogger("test"), { requeue: async (j) => void requeued.push(j.id) });
    const out = await dispatch(event(job("a"), job("b"), job("c")));
    expect(launcher.launched).toEqual(["a"]);
    expect(requeued).toEqual(["b", "c"]);
    expect(out.batchItemFailures).toEqual([]);
  });

  it("returns the message for retry when the requeue itself fails, and without a requeue", async () => {
    const failing = createDispatcher(fleet(0), createLogger("test"), {
      requeue: async () => {
        throw new Error("broker down");
      },
    });
    expect((await failing(event(job("a")))).batchItemFailures).toEqual([{ itemIdentifier: "m-a" }]);
    const plain = createDispatcher(fleet(0), createLogger("test"));
    expect((await plain(event(job("b")))).batchItemFailures).toEqual([{ itemIdentifier: "m-b" }]);
  });

  it("reports a malformed message as failed, never drops it", async () => {
    const dispatch = createDispatcher(fleet(5), createLogger("test"), { requeue: async () => undefined });
    const out = await dispatch({ Records: [{ messageId: "bad", body: "{not json" }] });
    expect(out.batchItemFailures).toEqual([{ itemIdentifier: "bad" }]);
  });
});
