import { useEffect, useRef, useState } from "preact/hooks";
import type { ComparisonDetail } from "@incumbent/client";
import { call, client } from "../api.js";
import { ProgressChart, type SolverTrace, TimesChart } from "../charts.js";
import { ErrorLine, fmt, message, usePoll } from "../ui.js";
import { executionHash } from "./execution.js";
import { NumericsPanel } from "./numerics.js";

const FINAL = new Set(["completed", "failed", "cancelled"]);

/**
 * One comparison as it fills in: the table is polled (rows finish one by one), the charts follow the
 * comparison's SSE stream (each progress point names its solver) and end at each row's final numbers.
 */
export function ComparisonView({ id, headingLevel = 2, onSettled }: { id: string; headingLevel?: 2 | 3; onSettled?: () => void }) {
  const [detail, setDetail] = useState<ComparisonDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [points, setPoints] = useState<Record<string, SolverTrace["points"]>>({});
  const streamed = useRef<Record<string, SolverTrace["points"]>>({});

  usePoll(
    async () => {
      try {
        const d = await client.comparison(id);
        setDetail(d);
        if (FINAL.has(d.status)) onSettled?.();
        return !FINAL.has(d.status);
      } catch (err) {
        setError(message(err));
        return false;
      }
    },
    1000,
    [id],
  );

  useEffect(() => {
    streamed.current = {};
    setPoints({});
    const abort = new AbortController();
    // Points arrive in bursts; one render per animation frame is plenty.
    let frame = 0;
    (async () => {
      for await (const e of client.comparisonEvents(id, { signal: abort.signal })) {
        if (e.event === "progress") {
          const solver = e.data.solver_name;
          streamed.current[solver] = streamed.current[solver] ?? [];
          const list = streamed.current[solver];
          list.push({ t: e.data.time_seconds, primal: e.data.primal, dual: e.data.dual });
          cancelAnimationFrame(frame);
          frame = requestAnimationFrame(() => setPoints({ ...streamed.current }));
        } else if (e.event === "final") {
          setDetail(e.data);
        }
      }
    })().catch((err) => {
      if (!abort.signal.aborted) setError(`progress stream: ${message(err)}`);
    });
    return () => {
      abort.abort();
      cancelAnimationFrame(frame);
    };
  }, [id]);

  const cancel = async () => {
    try {
      setDetail(await call(client.api.POST("/api/v2/solvers/compare/{comparison_id}/cancel", { params: { path: { comparison_id: id } } })));
    } catch (err) {
      setError(message(err));
    }
  };

  if (!detail) return <ErrorLine error={error} />;
  const rows = detail.results;
  const solvers = rows.map((r) => r.solver_name);
  const traces: SolverTrace[] = rows.map((r) => {
    const live = points[r.solver_name] ?? [];
    // A finished row's own numbers close its line (a fast LP may stream no point at all); never before
    // its last streamed point, as the adapter's search time can be shorter than the process's clock.
    const lastStreamed = live.reduce((t, p) => Math.max(t, p.t), 0);
    const end =
      r.status === "completed" && (r.objective_value !== null || r.dual_bound !== null)
        ? [{ t: Math.max(lastStreamed, r.solver_time_seconds ?? (r.wall_time_ms ?? 0) / 1000), primal: r.objective_value, dual: r.dual_bound }]
        : [];
    return { solver: r.solver_name, points: [...live, ...end] };
  });
  const H = headingLevel === 2 ? "h2" : "h3";
  const a = detail.agreement;
  return (
    <section class="comparison" aria-labelledby={`cmp-${id}`}>
      <H id={`cmp-${id}`}>
        {detail.problem_name} <span class="hint">({detail.status})</span>
      </H>
      <ErrorLine error={error ?? detail.error_message} />
      <p class="hint">
        {detail.problem_class ?? "class pending"} · {detail.variable_count ?? "?"} variables · {detail.constraint_count ?? "?"} constraints · time limit{" "}
        {detail.settings?.time_limit_seconds} s · gap {detail.settings?.gap_tolerance} · {detail.settings?.threads} thread(s)
        {detail.machine_note ? ` · ${detail.machine_note}` : ""}
      </p>
      {FINAL.has(detail.status) ? null : (
        <button type="button" onClick={cancel}>
          Cancel comparison
        </button>
      )}
      <table class="results">
        <caption>Results, in the order the solvers ran</caption>
        <thead>
          <tr>
            <th scope="col">Solver</th>
            <th scope="col">Row</th>
            <th scope="col">Verdict</th>
            <th scope="col">Objective</th>
            <th scope="col">Bound</th>
            <th scope="col">Gap</th>
            <th scope="col">Time (ms)</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.solver_name} data-solver={r.solver_name}>
              <th scope="row">
                {r.execution_id ? (
                  <a href={executionHash(r.execution_id)}>
                    {r.solver_name}
                    <span class="sr-only"> execution</span>
                  </a>
                ) : (
                  r.solver_name
                )}{" "}
                {r.solver_version ? <span class="hint">{r.solver_version}</span> : null}
              </th>
              <td>{r.status}</td>
              <td class="verdict">
                {r.solver_status ?? "—"}
                {r.unsupported_reason ? ` (${r.unsupported_reason})` : ""}
                {r.verification && r.verification.claimed_status !== r.solver_status ? (
                  <span class="hint claimed"> (the solver said {r.verification.claimed_status})</span>
                ) : null}
                {r.error_message ? <span class="hint"> {r.error_message}</span> : null}
              </td>
              <td>{fmt(r.objective_value)}</td>
              <td>{fmt(r.dual_bound)}</td>
              <td>{fmt(r.gap, 3)}</td>
              <td>{fmt(r.wall_time_ms, 4)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="agreement" aria-live="polite">
        {a ? (
          <dl class="facts">
            <dt>Compared</dt>
            <dd>{a.compared_solvers.join(", ")}</dd>
            <dt>Objectives agree</dt>
            <dd data-agree={String(a.objectives_agree)}>{a.objectives_agree ? "yes" : "no"}</dd>
            <dt>Largest objective difference</dt>
            <dd>
              {fmt(a.max_objective_delta)} (tolerance {fmt(a.objective_tolerance)})
            </dd>
            <dt>Solutions identical</dt>
            <dd>{a.solutions_identical ? "yes" : "no"}</dd>
            <dt>Alternative optima</dt>
            <dd>{a.alternative_optima ? "yes (a normal result, not a fault)" : "no"}</dd>
            {a.verdicts_agree === undefined ? null : (
              <>
                <dt>Verdicts agree</dt>
                <dd data-verdicts-agree={String(a.verdicts_agree)}>
                  {a.verdicts_agree ? "yes" : `no: ${(a.conflicts ?? []).map((c) => c.message).join("; ")}`}
                </dd>
              </>
            )}
          </dl>
        ) : (
          <p class="hint">Agreement appears once two solvers finish optimal or feasible.</p>
        )}
      </div>
      <NumericsPanel numerics={detail.numerics} id={id} />
      <div class="charts">
        <TimesChart solvers={solvers} times={rows.map((r) => (r.status === "completed" ? r.wall_time_ms : null))} />
        <ProgressChart traces={traces} />
      </div>
    </section>
  );
}
