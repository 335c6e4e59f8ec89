import { isoTime } from "../clock.js";
import { newId } from "../ids.js";
import type { Settings } from "../solvers/settings.js";
import type { RunRecord, TriggerRecord } from "./store.js";

/** What a new run of a trigger is made of; the rest of its fields come from the trigger or start empty. */
export interface NewRun {
  trigger: Pick<TriggerRecord, "id" | "org_id" | "solver_name" | "document_id" | "version_id" | "warm_start" | "race">;
  source: RunRecord["source"];
  createdBy: string;
  rerunOf: string | null;
  overrideData: Record<string, unknown>;
  settings: Settings;
  nowMs: number;
  /** The run's id when it must be made once only (a schedule's slot); else a new one. */
  id?: string;
}

/**
 * A new trigger run record: the one place its fields are listed. Run now waits `pending` (its caller
 * may watch it start); fire, rerun and a schedule's runs are `queued`.
 */
export function newRunRecord(r: NewRun): RunRecord {
  return {
    id: r.id ?? newId(r.source === "run_now" ? "trun" : "run", r.nowMs),
    trigger_id: r.trigger.id,
    org_id: r.trigger.org_id,
    created_by: r.createdBy,
    status: r.source === "run_now" ? "pending" : "queued",
    source: r.source,
    rerun_of: r.rerunOf,
    override_data: r.overrideData,
    solver_name: r.trigger.solver_name ?? "auto",
    document_id: r.trigger.document_id,
    version_id: r.trigger.version_id,
    settings: r.settings,
    time_limit_seconds: r.settings.time_limit_seconds,
    execution_id: null,
    result: null,
    error: null,
    validation: null,
    created_at: isoTime(r.nowMs),
    started_at: null,
    completed_at: null,
    webhook: null,
    ...(r.trigger.warm_start ? { warm_start: r.trigger.warm_start } : {}),
    ...(r.trigger.race ? { race: r.trigger.race } : {}),
  };
}
