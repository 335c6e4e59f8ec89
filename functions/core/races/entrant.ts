import type { ExecutionRecord } from "../executions/store.js";
import type { JobPorts } from "../jobs/ports.js";
import { solveExecution } from "../jobs/solve-execution.js";
import type { Problem } from "../problem/schema.js";
import { type RacePorts, settleEntrant } from "./settle.js";

/**
 * How often a running entrant's worker reads whether it was asked to stop (one consistent read of one
 * attribute): the stop's delay is half of it on average, and the race answers only once its losers stopped.
 */
export const RACE_STOP_POLL_MS = 250;

/** The job ports with the race store: what a worker running an entrant needs. */
export type RaceJobPorts = JobPorts & Pick<RacePorts, "races">;

/**
 * A race entrant's job on its worker, once the worker holds its execution: its row turns `running`, the
 * solve runs through the same gate as any execution (jobs/solve-execution.ts) while the worker watches
 * for `cancel_requested` — when another entrant won, the solve is stopped through the kill switch
 * (SIGTERM, then SIGKILL of its process group) and the execution ends `cancelled` with what it had
 * reached — and the end is settled on the race (settle.ts). The worker is then free for its next job.
 */
export async function solveRaceEntrant(
  ports: RaceJobPorts,
  { record, problem, signal, stopPollMs = RACE_STOP_POLL_MS }: { record: ExecutionRecord; problem: Problem; signal?: AbortSignal; stopPollMs?: number },
): Promise<void> {
  const raceId = record.origin.id!;
  const race = await ports.races.get(record.org_id, raceId);
  const index = race?.race?.entrants.findIndex((e) => e.execution_id === record.id) ?? -1;
  if (index >= 0) await ports.races.markRunning(record.org_id, raceId, index);
  const stop = watchForStop(ports, record, stopPollMs);
  try {
    const solved = await solveExecution(ports, { record, problem, signal, stop: stop.signal });
    await settleEntrant(ports, {
      entrant: record,
      final: solved.final,
      response: solved.response,
      reached: solved.final === "cancelled" ? solved.reached : undefined,
      timeSeconds: secondsSinceStart(ports, record),
      sense: problem.sense,
    });
  } finally {
    stop.close();
  }
}

/** The end of an entrant whose job threw (its execution was failed by the job): settled on the race all the same. */
export async function settleFailedEntrant(ports: RaceJobPorts, { record, problem }: { record: ExecutionRecord; problem: Problem | null }): Promise<void> {
  await settleEntrant(ports, {
    entrant: record,
    final: "failed",
    response: null,
    timeSeconds: secondsSinceStart(ports, record),
    sense: problem?.sense,
  });
}

const secondsSinceStart = (ports: Pick<JobPorts, "clock">, record: ExecutionRecord): number =>
  record.started_at ? Math.max(0, ports.clock.now() - Date.parse(record.started_at)) / 1000 : 0;

/** Reads `cancel_requested` every `pollMs` (and once at once) and aborts when it is set; a failed read is tried again next time. */
function watchForStop(ports: RaceJobPorts, record: ExecutionRecord, pollMs: number): { signal: AbortSignal; close(): void } {
  const controller = new AbortController();
  let reading = false;
  const check = async () => {
    if (reading || controller.signal.aborted) return;
    reading = true;
    try {
      if (await ports.races.cancelRequested(record.org_id, record.id)) {
        ports.logger.info("race entrant stopped: another solver won", { execution_id: record.id, race_id: record.origin.id });
        controller.abort();
      }
    } catch {
      // The next tick reads again; the lease and the kill switch still bound the solve.
    } finally {
      reading = false;
    }
  };
  void check();
  const timer = setInterval(() => void check(), pollMs);
  timer.unref?.();
  return { signal: controller.signal, close: () => clearInterval(timer) };
}
