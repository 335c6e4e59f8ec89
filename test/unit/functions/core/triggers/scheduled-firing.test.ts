import { describe, expect, it } from "vitest";
import { idTime, looksLikeId } from "../../../../../functions/core/ids.js";
import { JobMessageSchema } from "../../../../../functions/core/queue/messages.js";
import { scheduledRunId } from "../../../../../functions/core/triggers/runs.js";
import { SCHEDULED_TIME_ATTRIBUTE, scheduleMessage } from "../../../../../functions/core/triggers/schedules.js";

describe("a schedule's firing names its slot, and the slot names its run", () => {
  it("gives every delivery of one slot the same run id, however the instant is spelled", () => {
    const first = scheduledRunId("trg_a", "2026-11-23T18:00:00Z");
    expect(first).toBeDefined();
    expect(scheduledRunId("trg_a", "2026-11-23T18:00:00.000Z")).toBe(first);
    expect(looksLikeId(first!, "run")).toBe(true);
    expect(idTime(first!)).toBe(Date.UTC(2026, 10, 23, 18, 0, 0)); // runs list in slot order
  });

  it("gives another slot, or another trigger's same slot, another run id", () => {
    const first = scheduledRunId("trg_a", "2026-11-23T18:00:00Z");
    expect(scheduledRunId("trg_a", "2026-11-23T18:01:00Z")).not.toBe(first);
    expect(scheduledRunId("trg_b", "2026-11-23T18:00:00Z")).not.toBe(first);
  });

  it("makes no slot id for a firing that names no instant (a message of a schedule set before slots were sent)", () => {
    expect(scheduledRunId("trg_a", undefined)).toBeUndefined();
    expect(scheduledRunId("trg_a", SCHEDULED_TIME_ATTRIBUTE)).toBeUndefined();
  });

  it("puts the slot on the schedule's message, which the jobs queue's schema accepts", () => {
    const message = scheduleMessage({ id: "trg_a", org_id: "org_a", priority: 10 }, "2026-11-23T18:00:00Z");
    expect(JobMessageSchema.parse(message)).toEqual({
      type: "trigger_schedule",
      id: "trg_a",
      org_id: "org_a",
      trigger_id: "trg_a",
      priority: 10,
      scheduled_at: "2026-11-23T18:00:00Z",
    });
  });
});
