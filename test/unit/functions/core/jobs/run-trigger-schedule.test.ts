import { describe, expect, it } from "vitest";
import { runTriggerSchedule } from "../../../../../functions/core/jobs/run-trigger-schedule.js";
import type { TriggerRuns } from "../../../../../functions/core/triggers/runs.js";
import { fakeJobPorts, OPTIMUM } from "../../../../support/job-fakes.js";

/**
 * A schedule's firing on the worker: the run is recorded and queued by the trigger runs' service (a
 * worker then takes it like a fired run); a firing with nothing to run, or delivered again, is logged.
 */

type Firing = Awaited<ReturnType<TriggerRuns["scheduled"]>>;

function world(firing: Firing) {
  const { ports, logs } = fakeJobPorts(async () => OPTIMUM);
  const calls: unknown[][] = [];
  const triggerRuns = {
    scheduled: async (...args: [string, string, string?]) => {
      calls.push(args);
      return firing;
    },
  };
  return { ports: { triggerRuns, logger: ports.logger }, logs, calls };
}

const job = { orgId: "org_1", triggerId: "trg_1", scheduledAt: "2026-11-01T06:00:00Z" };

describe("a schedule's firing", () => {
  it("records and queues the run for the firing's instant, and logs nothing", async () => {
    const w = world({ outcome: "started", run: { id: "run_1" } } as Firing);
    await runTriggerSchedule(w.ports, job);
    expect(w.calls).toEqual([["org_1", "trg_1", "2026-11-01T06:00:00Z"]]);
    expect(w.logs).toEqual([]);
  });

  it("logs a firing with nothing to run (the trigger gone, disabled or unscheduled)", async () => {
    const w = world({ outcome: "nothing_to_run" });
    await runTriggerSchedule(w.ports, job);
    expect(w.logs).toEqual([
      { level: "info", message: "a schedule fired with nothing to run (trigger gone, disabled or unscheduled)", fields: { trigger_id: "trg_1" } },
    ]);
  });

  it("logs a firing delivered again with the run it recorded the first time", async () => {
    const w = world({ outcome: "already_fired", run_id: "run_1" });
    await runTriggerSchedule(w.ports, job);
    expect(w.logs).toEqual([
      {
        level: "info",
        message: "a schedule's firing was delivered again: its run is recorded already",
        fields: { trigger_id: "trg_1", scheduled_at: "2026-11-01T06:00:00Z", run_id: "run_1" },
      },
    ]);
  });
});
