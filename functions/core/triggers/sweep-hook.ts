import type { Services } from "../services.js";
import type { SweepHook } from "../sweeper/sweep.js";
import { ACTIVE_RUN_KIND, type RunRecord } from "./store.js";

/**
 * The sweeper's hook for trigger runs (registered by bin/local/local-stack.ts and functions/sweeper/lambda.ts):
 * a run whose worker died (lease expired) or that no worker took in time becomes `failed` with the
 * sweeper's reason, in one write that also decides its webhook; then the webhook is queued and the
 * run's user notified, exactly as when a worker fails a run.
 */
export function triggerSweepHooks(services: Services): Record<string, SweepHook> {
  const hook: SweepHook = async ({ pk, sk, reason, nowMs, seenQueuedAt }) => {
    const run = await services.table.get<RunRecord & { pk: string; sk: string }>(pk, sk);
    if (!run || !["queued", "pending", "running"].includes(run.status)) return false;
    const trigger = await services.triggerStore.getTrigger(run.org_id, run.trigger_id);
    const outcome = { status: "failed" as const, result: null, error: reason };
    const fields = await services.runOutcomes.finalFields(run, { trigger, outcome, nowMs });
    const ended = await services.triggerStore.failRunIfLeaseLapsed(run.trigger_id, { runId: run.id, seenStatus: run.status, seenQueuedAt, nowMs, set: fields });
    if (!ended) return false;
    await services.runOutcomes.announce(ended, trigger, null);
    return true;
  };
  return { [ACTIVE_RUN_KIND]: hook };
}
