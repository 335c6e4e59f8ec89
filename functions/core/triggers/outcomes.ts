import type { Services } from "../services.js";
import { storePayload } from "../blob/blob-store.js";
import { isoTime } from "../clock.js";
import type { SolveResponse } from "../executions/schemas.js";
import { outboxIndex, type FinalRunFields, type RunRecord, type TriggerRecord } from "./store.js";
import { blobKeys } from "../blob/keys.js";

export interface RunOutcome {
  status: "completed" | "failed";
  result: SolveResponse | null;
  error: string | null;
}

/**
 * What happens when a run ends, wherever it ends (the worker, the sweeper, a refused enqueue):
 * `finalFields` is what the one conditional final write carries (result, error, and the webhook
 * delivery, so a run is never final without its delivery decided); `announce`, after that write
 * succeeded, queues the webhook and notifies the run's user (execution_complete / execution_failed).
 * validation_failed runs never come here: their caller got the 422, and no webhook is sent for them.
 */
export class RunOutcomes {
  constructor(private readonly deps: Pick<Services, "config" | "blobs" | "webhooks" | "notifications" | "identity" | "logger">) {}

  async finalFields(
    run: RunRecord,
    { trigger, outcome, nowMs }: { trigger: TriggerRecord | null; outcome: RunOutcome; nowMs: number },
  ): Promise<FinalRunFields> {
    const webhook = await this.deps.webhooks.prepare(run, { trigger, outcome, nowMs });
    return {
      result: outcome.result
        ? await storePayload(this.deps.blobs, blobKeys.triggerRunResult(run.org_id, run.id), {
            value: outcome.result,
            inlineMaxBytes: this.deps.config.inlinePayloadMaxBytes,
          })
        : null,
      error: outcome.status === "failed" ? (outcome.error ?? "the run failed") : null,
      completed_at: isoTime(nowMs),
      webhook,
      // Until attempt 1 is queued, the run waits in the outbox: a crash in between loses no delivery.
      ...(webhook ? outboxIndex(run, isoTime(nowMs)) : {}),
    };
  }

  async announce(run: RunRecord, trigger: TriggerRecord | null, result: SolveResponse | null): Promise<void> {
    await this.deps.webhooks.dispatch(run);
    if (!trigger) return; // deleted meanwhile: its runs go with it
    try {
      const org = await this.deps.identity.getOrganization(run.org_id);
      const completed = run.status === "completed";
      const verdict = result ? `${result.status}${result.objective_value !== null ? `, objective ${result.objective_value}` : ""}` : "";
      await this.deps.notifications.notify(run.created_by, {
        type: completed ? "execution_complete" : "execution_failed",
        title: completed ? `Trigger ${trigger.name}: ${result?.status ?? "finished"}` : `Trigger ${trigger.name}: run failed`,
        message: completed ? `Run ${run.id} finished: ${verdict}.` : `Run ${run.id} failed: ${run.error ?? "unknown error"}.`,
        data: {
          execution_id: run.execution_id,
          objective_value: result?.objective_value ?? null,
          credits_remaining: org?.credit_balance ?? null,
          trigger_id: run.trigger_id,
          run_id: run.id,
        },
        link: `/triggers/${run.trigger_id}/runs/${run.id}`,
      });
    } catch (error) {
      this.deps.logger.warn("run notification not created", { run_id: run.id, error });
    }
  }
}
