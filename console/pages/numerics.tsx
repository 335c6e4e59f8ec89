import type { ProblemPreview, SolveResponse } from "@incumbent/client";
import { fmt } from "../ui.js";
import { modelLabel } from "./execution.js";

type Numerics = ProblemPreview["numerics"];
type Range = Numerics["matrix_range"];
type Verification = SolveResponse["verification"];

const sci = (v: number) => (v === 0 ? "0" : v.toExponential(1).replace("e+", "e"));
const range = (r: Range | null | undefined) => (r ? `[${sci(r.min)}, ${sci(r.max)}]` : "—");

/** A model's coefficient ranges as Gurobi and HiGHS print them, with the warnings naming what makes one wide. */
export function NumericsPanel({ numerics, id }: { numerics: Numerics | null | undefined; id: string }) {
  if (!numerics) return null;
  const warnings = numerics.warnings ?? [];
  return (
    <section class="numerics" aria-labelledby={`numerics-${id}`} data-testid="numerics">
      <h3 id={`numerics-${id}`}>Coefficient ranges</h3>
      <dl class="facts ranges">
        <dt>Matrix</dt>
        <dd>{range(numerics.matrix_range)}</dd>
        <dt>Objective</dt>
        <dd>{range(numerics.objective_range)}</dd>
        <dt>Bounds</dt>
        <dd>{range(numerics.bounds_range)}</dd>
        <dt>Right-hand sides</dt>
        <dd>{range(numerics.rhs_range)}</dd>
      </dl>
      {warnings.length > 0 ? (
        <ul class="warnings">
          {warnings.map((w) => (
            <li key={`${w.range}-${w.kind}`} data-range={w.range} data-kind={w.kind}>
              <strong>{w.range}</strong>: {w.message}
            </li>
          ))}
        </ul>
      ) : (
        <p class="hint">No range is wide (ratio above 1e6), and no value large (1e9) or tiny (1e-9).</p>
      )}
    </section>
  );
}

const STATUS_WORDS: Record<string, string> = {
  verified: "point verified",
  violated: "answer rejected",
  not_checked: "no point to check",
};

/** What the verification gate found: a tag, and the facts that explain it. */
export function VerificationFacts({ verification, verdict }: { verification: Verification | null | undefined; verdict: string | null | undefined }) {
  if (!verification) return null;
  const v = verification;
  return (
    <>
      <dt>Verification</dt>
      <dd class="verification">
        <span class="tag" data-verification={v.status}>
          {STATUS_WORDS[v.status] ?? v.status}
        </span>
        {v.claimed_status && v.claimed_status !== verdict ? <span class="hint"> the solver said {v.claimed_status}</span> : null}
        {v.max_violation !== null && v.max_violation !== undefined ? <span class="hint"> · largest violation {fmt(v.max_violation, 3)}</span> : null}
        {v.where ? (
          <span class="hint">
            {" "}
            · at {v.where.kind} <code>{modelLabel(v.where, v.where.name)}</code>
          </span>
        ) : null}
        {v.message ? <p class="hint">{v.message}</p> : null}
        {v.retried_with ? <p class="hint">Repeated with integrality tolerance {v.retried_with.integrality_tolerance}.</p> : null}
        {v.refuted_by ? (
          <p class="hint">
            Refuted by {v.refuted_by.solver_name}
            {v.refuted_by.objective_value !== null ? ` (objective ${fmt(v.refuted_by.objective_value)})` : ""}.
          </p>
        ) : null}
      </dd>
    </>
  );
}
