import { useEffect, useRef, useState } from "preact/hooks";
import type { RaceEntrant, RaceView } from "@incumbent/client";
import { client } from "../api.js";
import { ProgressChart, type SolverTrace } from "../charts.js";
import { ErrorLine, fmt, message } from "../ui.js";
import { executionHash } from "./execution.js";

const RUNNING = new Set<RaceEntrant["state"]>(["queued", "running"]);

const DECIDED_BY: Record<NonNullable<RaceView["decided_by"]>, string> = {
  proven_verdict: "the first verified proven verdict",
  best_when_all_ended: "the best verified answer once every entrant ended (none proved a verdict)",
  single_solver: "one solver alone (the race degraded)",
};

/**
 * Each entrant's progress, live: every entrant is an execution of its own, so its points come from the
 * same events route any execution has, one stream per entrant, all on one chart.
 */
function useEntrantPoints(entrants: RaceEntrant[]): { points: Record<string, SolverTrace["points"]>; error: string | null } {
  const [points, setPoints] = useState<Record<string, SolverTrace["points"]>>({});
  const [error, setError] = useState<string | null>(null);
  const streamed = useRef<Record<string, SolverTrace["points"]>>({});
  const ids = entrants.map((e) => e.execution_id).join();
  useEffect(() => {
    streamed.current = {};
    setPoints({});
    const abort = new AbortController();
    // Points arrive in bursts from several streams; one render per animation frame is plenty.
    let frame = 0;
    for (const entrant of entrants) {
      (async () => {
        for await (const e of client.executionEvents(entrant.execution_id, { signal: abort.signal })) {
          if (e.event !== "progress") continue;
          const list = streamed.current[entrant.solver] ?? [];
          streamed.current[entrant.solver] = list;
          list.push({ t: e.data.time_seconds, primal: e.data.primal, dual: e.data.dual });
          cancelAnimationFrame(frame);
          frame = requestAnimationFrame(() => setPoints({ ...streamed.current }));
        }
      })().catch((err) => {
        if (!abort.signal.aborted) setError(`${entrant.solver}'s progress stream: ${message(err)}`);
      });
    }
    return () => {
      abort.abort();
      cancelAnimationFrame(frame);
    };
  }, [ids]);
  return { points, error };
}

/** An entrant's line: its streamed points, closed by its own last numbers once it ended (a fast LP may stream none). */
function traceOf(entrant: RaceEntrant, live: SolverTrace["points"]): SolverTrace {
  const lastStreamed = live.reduce((t, p) => Math.max(t, p.t), 0);
  const ended = !RUNNING.has(entrant.state) && (entrant.objective_value !== null || entrant.best_bound !== null);
  const end = ended ? [{ t: Math.max(lastStreamed, entrant.time_seconds ?? 0), primal: entrant.objective_value, dual: entrant.best_bound }] : [];
  return { solver: entrant.solver, points: [...live, ...end] };
}

/** A race as it runs: who is in it and how far each got, one chart of every entrant's incumbent and bound, the winner. */
export function RaceBoard({ race }: { race: RaceView }) {
  const { points, error } = useEntrantPoints(race.entrants);
  const traces = race.entrants.map((e) => traceOf(e, points[e.solver] ?? []));
  return (
    <section class="race" aria-labelledby="race-title">
      <h3 id="race-title">Race</h3>
      <p class="race-outcome" aria-live="polite">
        {race.winner ? (
          <>
            Winner: <strong data-testid="race-winner">{race.winner}</strong>
            {race.decided_by ? <span class="hint"> · decided by {DECIDED_BY[race.decided_by]}</span> : null}
          </>
        ) : race.entrants.some((e) => RUNNING.has(e.state)) ? (
          "Racing: the first verified proven answer wins and the others are stopped."
        ) : (
          "No winner: every entrant failed."
        )}
      </p>
      {race.note ? (
        <p class={race.degraded ? "note degraded" : "note"} role="note" data-testid="race-note">
          {race.degraded ? <strong>Degraded: </strong> : null}
          {race.note}
        </p>
      ) : null}
      <ErrorLine error={error} />
      <table class="results entrants">
        <caption>Entrants</caption>
        <thead>
          <tr>
            <th scope="col">Solver</th>
            <th scope="col">State</th>
            <th scope="col">Verdict</th>
            <th scope="col">Objective</th>
            <th scope="col">Bound</th>
            <th scope="col">Time (s)</th>
          </tr>
        </thead>
        <tbody>
          {race.entrants.map((e) => (
            <tr key={e.execution_id} data-solver={e.solver} data-state={e.state} class={e.solver === race.winner ? "winner" : undefined}>
              <th scope="row">
                <a href={executionHash(e.execution_id)}>
                  {e.solver}
                  <span class="sr-only"> execution</span>
                </a>{" "}
                {e.solver === race.winner ? <span class="tag">winner</span> : null}
              </th>
              <td class="state">{e.state}</td>
              <td class="verdict">{e.status ?? "—"}</td>
              <td>{fmt(e.objective_value)}</td>
              <td>{fmt(e.best_bound)}</td>
              <td>{fmt(e.time_seconds, 3)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="charts">
        <ProgressChart traces={traces} />
      </div>
    </section>
  );
}
