import { useState } from "preact/hooks";
import type { ExecutionView as Execution } from "@incumbent/client";
import { ApiError, call, client } from "../api.js";

type Infeasibility = NonNullable<NonNullable<Execution["result"]>["infeasibility"]>;
import { ErrorLine, fmt, message, usePoll, when } from "../ui.js";
import { NumericsPanel, VerificationFacts } from "./numerics.js";
import { RaceBoard } from "./race.js";
import { AutoChoiceFacts } from "./recommendation.js";

const FINAL = new Set(["completed", "failed", "cancelled"]);

export const executionHash = (id: string) => `#/executions/${encodeURIComponent(id)}`;

/** The execution id in `#/executions/<id>`, or null on the page's own address. */
export const executionIdOf = (hash: string): string | null => {
  const id = hash.replace(/^#\/?/, "").split("/")[1];
  return id ? decodeURIComponent(id) : null;
};

/** A member of the subset in the modeller's words when the model was JModel: `capacity["north", 2]`. */
export function modelLabel(member: { family?: string; index?: (string | number)[] }, flat: string): string {
  if (member.family === undefined) return flat;
  const index = member.index ?? [];
  return index.length === 0 ? member.family : `${member.family}[${index.map((a) => (typeof a === "number" ? String(a) : JSON.stringify(a))).join(", ")}]`;
}

export function ExecutionsPage({ id }: { id: string | null }) {
  const [typed, setTyped] = useState("");
  return (
    <>
      <h1 tabIndex={-1}>Execution</h1>
      <form
        class="columns"
        onSubmit={(e) => {
          e.preventDefault();
          if (typed.trim()) location.hash = executionHash(typed.trim());
        }}
      >
        <label>
          Execution id <input name="execution_id" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
        </label>
        <button type="submit">Open</button>
      </form>
      {id ? <ExecutionView key={id} id={id} /> : <p class="hint">Open an execution by its id (a solve's execution_id, a comparison row's).</p>}
    </>
  );
}

/**
 * One execution, polled until final; an infeasible one shows its conflicting subset, or offers to find it.
 * A race shows its entrants as they run (the poll refreshes their rows); an auto solve says why it chose.
 */
export function ExecutionView({ id }: { id: string }) {
  const [detail, setDetail] = useState<Execution | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** Why the last read failed; a rate limit is said and waited out (the next read is the retry), anything else ends the polling. */
  const [readError, setReadError] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);
  usePoll(
    async () => {
      try {
        const d = await client.execution(id);
        setDetail(d);
        setReadError(null);
        return !FINAL.has(d.status);
      } catch (err) {
        setReadError(message(err));
        return err instanceof ApiError && err.status === 429;
      }
    },
    1000,
    [id],
  );

  const explain = async () => {
    setAsking(true);
    try {
      const created = await call(client.api.POST("/api/v2/models/executions/{execution_id}/explain", { params: { path: { execution_id: id } } }));
      location.hash = executionHash(created.id);
    } catch (err) {
      setError(message(err));
      setAsking(false);
    }
  };

  if (!detail) return <ErrorLine error={error ?? readError} />;
  const result = detail.result;
  const infeasibility = result?.infeasibility ?? null;
  const canExplain = result?.status === "infeasible" && !infeasibility && !detail.explanation_execution_id;
  return (
    <section class="execution" aria-labelledby={`exe-${id}`}>
      <h2 id={`exe-${id}`}>
        {detail.problem_name} <span class="hint">({detail.status})</span>
      </h2>
      <ErrorLine error={error ?? readError ?? detail.error_message} />
      <dl class="facts">
        <dt>Verdict</dt>
        <dd class="verdict">{result?.status ?? "—"}</dd>
        <dt>Solver</dt>
        <dd>
          {detail.solver_name} {result?.solver_version ? <span class="hint">{result.solver_version}</span> : null}
        </dd>
        <dt>Objective</dt>
        <dd>{fmt(result?.objective_value)}</dd>
        <VerificationFacts verification={result?.verification} verdict={result?.status} />
        <dt>Model</dt>
        <dd>
          {detail.problem_class} · {detail.variable_count} variables · {detail.constraint_count} constraints
        </dd>
        <dt>Settings</dt>
        <dd>
          time limit {detail.settings.time_limit_seconds} s · gap {detail.settings.gap_tolerance}
          {detail.settings.explain_infeasibility ? " · explain infeasibility" : ""}
        </dd>
        <dt>Created</dt>
        <dd>{when(detail.created_at)}</dd>
        {detail.origin.kind === "race" && detail.origin.id ? (
          <>
            <dt>Race</dt>
            <dd>
              an entrant of <a href={executionHash(detail.origin.id)}>{detail.origin.id}</a>
            </dd>
          </>
        ) : null}
        {detail.explains_execution_id ? (
          <>
            <dt>Explains</dt>
            <dd>
              <a href={executionHash(detail.explains_execution_id)}>{detail.explains_execution_id}</a>
            </dd>
          </>
        ) : null}
        {detail.explanation_execution_id ? (
          <>
            <dt>Explained by</dt>
            <dd>
              <a href={executionHash(detail.explanation_execution_id)}>{detail.explanation_execution_id}</a>
            </dd>
          </>
        ) : null}
      </dl>
      {canExplain ? (
        <p>
          <button type="button" onClick={explain} disabled={asking}>
            Explain why it is infeasible
          </button>{" "}
          <span class="hint">runs the model again with the same solver to find a conflicting subset; charged as a solve</span>
        </p>
      ) : null}
      {detail.auto_choice ? <AutoChoiceFacts choice={detail.auto_choice} /> : null}
      {detail.race ? <RaceBoard race={detail.race} /> : null}
      {infeasibility ? <InfeasibleSubset subset={infeasibility} /> : null}
      <NumericsPanel numerics={result?.numerics} id={id} />
    </section>
  );
}

function InfeasibleSubset({ subset }: { subset: Infeasibility }) {
  const verified = subset.verified === true ? "verified" : subset.verified === false ? "verification failed" : "not verified";
  const constraints = subset.constraints;
  const bounds = subset.variable_bounds;
  // Results from before issue 24 have no verdict_check.
  const check = subset.verdict_check;
  if (check?.status === "refuted") {
    return (
      <section class="subset" aria-labelledby="subset-title">
        <h3 id="subset-title">Not infeasible after all</h3>
        <p class="verdict-check" data-status="refuted">
          <strong>The infeasible verdict is wrong:</strong> {check.message}. There is no conflicting subset to show.
        </p>
      </section>
    );
  }
  return (
    <section class="subset" aria-labelledby="subset-title">
      <h3 id="subset-title">Why it is infeasible</h3>
      {check ? (
        <p class="hint verdict-check" data-status={check.status}>
          {check.status === "confirmed" ? `Verdict confirmed: ${check.message}.` : `Verdict not confirmed: ${check.message}.`}
        </p>
      ) : null}
      <p>
        <span class="tag" data-method={subset.method}>
          {subset.method === "solver_iis" ? "the solver's IIS" : "deletion filter"}
        </span>
        <span class="tag" data-irreducible={String(subset.irreducible)}>
          {subset.irreducible ? "irreducible" : "not shown irreducible"}
        </span>
        <span class="tag" data-verified={String(subset.verified)}>
          {verified}
        </span>
      </p>
      <p class="hint">
        These {constraints.length} constraint(s) and {bounds.length} bound(s) cannot hold together
        {subset.irreducible ? "; dropping any one of them would let the rest hold." : "."}
      </p>
      {constraints.length > 0 ? (
        <table class="subset-constraints">
          <caption>Conflicting constraints</caption>
          <thead>
            <tr>
              <th scope="col">Constraint</th>
              <th scope="col">Name in the solved model</th>
            </tr>
          </thead>
          <tbody>
            {constraints.map((c) => (
              <tr key={c.name}>
                <th scope="row">{modelLabel(c, c.name)}</th>
                <td>
                  <code>{c.name}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {bounds.length > 0 ? (
        <table class="subset-bounds">
          <caption>Conflicting variable bounds</caption>
          <thead>
            <tr>
              <th scope="col">Variable</th>
              <th scope="col">Bound</th>
              <th scope="col">Name in the solved model</th>
            </tr>
          </thead>
          <tbody>
            {bounds.map((b) => (
              <tr key={b.variable}>
                <th scope="row">{modelLabel(b, b.variable)}</th>
                <td>{b.bound}</td>
                <td>
                  <code>{b.variable}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
