/**
 * The check behind every LP "optimal": a basis of the ORIGINAL model (unscaled, un-presolved) is
 * factorised afresh, its primal point x_B = B⁻¹(b − N x_N) and duals y = B⁻ᵀc_B recomputed, and then
 * judged with plain products of the model's own A, independent of the factors:
 *
 *  - primal: every column within its bounds and every row activity a_iᵀx within its sides, the
 *    violation taken relative to max(1, |bound|) for a column and max(1, |side|, Σ_j|a_ij x_j|) for a
 *    row (the magnitude of the terms whose sum rounding can disturb), at most `VERIFY_PRIMAL_TOL`;
 *  - dual: reduced costs d_j = c_j − a_jᵀy (d = −y_i for row i's logical, which is −a_iᵀx) of the
 *    sign each nonbasic status needs (≥ 0 at a lower bound, ≤ 0 at an upper, 0 when free; fixed
 *    variables take either), and |d_j| of basic variables (the residual of y), relative to
 *    max(1, |c_j|, Σ_i|a_ij y_i|), at most `VERIFY_DUAL_TOL`.
 *
 * The tolerances follow HiGHS's defaults (primal and dual feasibility 1e-7, judged on the unscaled
 * model after unscaling), made relative to the magnitudes involved so that one rule serves models whose
 * numbers run to 1e6 as well as 1. A basis that fails is cleaned up (`verifiedOptimum`): the simplex
 * goes on from it unperturbed with tightened tolerances, first on the scaled model, then on the
 * unscaled one; a bounded number of rounds. See docs/decisions.md, "jaos: optimal means verified".
 */
import type { LpModel } from "./model.js";
import { LpEngine } from "./lp.js";
import { AT_LOWER, AT_UPPER, BASIC } from "./basis-status.js";
import { factoredBasis } from "./verify-basis.js";

export const VERIFY_PRIMAL_TOL = 1e-7;
export const VERIFY_DUAL_TOL = 1e-7;

export interface BasisCheck {
  /** Primal and dual feasible within the tolerances. */
  ok: boolean;
  /** Worst relative primal violation (bounds and rows). */
  primal: number;
  /** Worst relative dual violation (wrong-signed or nonzero-basic reduced cost). */
  dual: number;
  /** Column values of the basic solution. */
  x: Float64Array;
  /** Row duals (minimisation convention: c = Aᵀy + d). */
  y: Float64Array;
  /** The basis checked (the factorisation may have swapped dependent columns for logicals). */
  status: Int8Array;
  /** Columns the factorisation replaced because the given basis was singular. */
  replaced: number;
}

/** Factorises `status` on the unscaled model and judges its primal and dual feasibility. Null when
 * `status` does not name exactly m basic variables. */
export function checkBasis(model: LpModel, status: Int8Array): BasisCheck | null {
  const basis = factoredBasis(model, status);
  if (!basis) return null;
  const { x, y, replaced } = basis;
  const { rows: m, cols: n, a } = model;

  let primal = 0;
  const over = (v: number, scale: number) => {
    if (v > 0) primal = Math.max(primal, v / scale);
  };
  for (let j = 0; j < n; j++) {
    const lo = model.colLower[j]!;
    const up = model.colUpper[j]!;
    over(lo - x[j]!, Math.max(1, Math.abs(lo)));
    over(x[j]! - up, Math.max(1, Math.abs(up)));
  }
  const activity = new Float64Array(m);
  const magnitude = new Float64Array(m);
  for (let j = 0; j < n; j++) {
    const xj = x[j]!;
    if (xj === 0) continue;
    for (let k = a.start[j]; k < a.start[j + 1]; k++) {
      activity[a.index[k]] += a.value[k] * xj;
      magnitude[a.index[k]] += Math.abs(a.value[k] * xj);
    }
  }
  for (let i = 0; i < m; i++) {
    const lo = model.rowLower[i]!;
    const up = model.rowUpper[i]!;
    over(lo - activity[i]!, Math.max(1, Math.abs(lo), magnitude[i]!));
    over(activity[i]! - up, Math.max(1, Math.abs(up), magnitude[i]!));
  }

  let dual = 0;
  const judge = (j: number, d: number, scale: number, fixed: boolean) => {
    const s = basis.status[j];
    let wrong = 0;
    if (s === BASIC) wrong = Math.abs(d);
    else if (fixed) wrong = 0;
    else if (s === AT_LOWER) wrong = -d;
    else if (s === AT_UPPER) wrong = d;
    else wrong = Math.abs(d);
    if (wrong > 0) dual = Math.max(dual, wrong / scale);
  };
  for (let j = 0; j < n; j++) {
    let d = model.cost[j]!;
    let size = Math.abs(d);
    for (let k = a.start[j]; k < a.start[j + 1]; k++) {
      const t = a.value[k] * y[a.index[k]]!;
      d -= t;
      size += Math.abs(t);
    }
    judge(j, d, Math.max(1, size), model.colLower[j] === model.colUpper[j]);
  }
  for (let i = 0; i < m; i++) judge(n + i, -y[i]!, Math.max(1, Math.abs(y[i]!)), model.rowLower[i] === model.rowUpper[i]);

  return { ok: primal <= VERIFY_PRIMAL_TOL && dual <= VERIFY_DUAL_TOL, primal, dual, x, y, status: basis.status, replaced };
}

export interface VerifiedOptimum {
  /** The last check made (ok, or the best the cleanup reached). */
  check: BasisCheck | null;
  /** The first check's worst violations, before any cleanup. */
  initial: { primal: number; dual: number } | null;
  /** Cleanup rounds run after the first check (0 when the basis passed at once). */
  rounds: number;
  iterations: number;
  /** Why the cleanup stopped without a verified basis. */
  reason?: string;
}

/** Cleanup rounds: each runs the simplex from the last basis with tighter tolerances. */
const CLEANUP: { scale: boolean; primal: number; dual: number }[] = [
  { scale: true, primal: 1e-9, dual: 1e-9 },
  { scale: false, primal: 1e-9, dual: 1e-9 },
  { scale: false, primal: 1e-10, dual: 1e-10 },
];

/**
 * From a basis of the original model the engine calls optimal: check it, and while it fails run the
 * simplex again from it (unperturbed, tolerances tightened, scaled then unscaled) and check again.
 * The result's `check.ok` says whether an optimum was verified. `checked`, when given, is
 * `checkBasis(model, basis)` already made (the check is a function of the statuses alone): it stands
 * for the first check instead of factorising the same basis twice.
 */
export function verifiedOptimum(model: LpModel, basis: Int8Array, deadline: number, checked?: BasisCheck | null): VerifiedOptimum {
  let check = checked === undefined ? checkBasis(model, basis) : checked;
  let iterations = 0;
  const initial = check && { primal: check.primal, dual: check.dual };
  let reason = check ? `basis fails the check (primal ${check.primal.toExponential(1)}, dual ${check.dual.toExponential(1)})` : "basis has the wrong size";
  for (let round = 0; round < CLEANUP.length; round++) {
    if (check?.ok) return { check, initial, rounds: round, iterations };
    if (!check) return { check, initial, rounds: round, iterations, reason };
    if (performance.now() >= deadline) return { check, initial, rounds: round, iterations, reason: `${reason}; time limit reached during cleanup` };
    const step = CLEANUP[round]!;
    const engine = new LpEngine(model, { scale: step.scale });
    engine.setBasis(check.status);
    const r = engine.solve({ deadline, perturb: false, tolerances: { primal: step.primal, dual: step.dual } });
    iterations += r.iterations;
    if (r.status !== "optimal") {
      reason = `${reason}; cleanup ended ${r.status}${r.message ? ` (${r.message})` : ""}`;
      continue;
    }
    const next = checkBasis(model, engine.getBasis());
    if (next) check = next;
    reason = `basis fails the check after ${round + 1} cleanup rounds (primal ${check.primal.toExponential(1)}, dual ${check.dual.toExponential(1)})`;
  }
  return { check, initial, rounds: CLEANUP.length, iterations, ...(check?.ok ? {} : { reason }) };
}
