import type { PayloadRef } from "../blob/blob-store.js";
import { type Clock, isoTime } from "../clock.js";
import type { ExecutionOutcome, ExecutionRecord, ExecutionStore } from "./store.js";

/** What closing a held execution reads and writes: the store, the holding worker, the clock, and who hears of final writes. */
export interface CloseExecutionPorts {
  executionStore: Pick<ExecutionStore, "finalizeHeld">;
  /** The worker whose lease the execution is held under. */
  workerId: string;
  clock: Clock;
  /** Told what this write made final, or (not held) only to read it again; absent: nobody listens. */
  announceFinal?(executionId: string, outcome?: ExecutionOutcome): void;
}

/**
 * Ends an execution this worker holds `cancelled` (a comparison's row not started, a trigger run lost
 * before it named its execution, a race entrant another solver beat), with `result` (null: none) and
 * why. Returns whether the write took: false when the execution was no longer held (swept, handed
 * back), when another outcome stands and a stored `result` is the caller's to take back.
 */
export async function closeCancelled(
  ports: CloseExecutionPorts,
  { record, result, errorMessage }: { record: Pick<ExecutionRecord, "id" | "org_id">; result: PayloadRef | null; errorMessage: string },
): Promise<boolean> {
  const held = await ports.executionStore.finalizeHeld(record.org_id, {
    id: record.id,
    worker: ports.workerId,
    status: "cancelled",
    fields: { result, error_message: errorMessage, completed_at: isoTime(ports.clock.now()) },
  });
  ports.announceFinal?.(record.id, held ? { id: record.id, status: "cancelled", result, error_message: errorMessage } : undefined);
  return held;
}
