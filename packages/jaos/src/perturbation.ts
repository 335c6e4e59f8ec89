/**
 * Cost perturbation: nonbasic costs move by a small random amount (seeded generator) in the direction
 * that makes their reduced cost more feasible, which breaks the ties behind dual degeneracy, stalling
 * and cycling. Used before dual phase 1 (whose auxiliary problem keeps the perturbed costs into phase
 * 2, as HiGHS does) or, when phase 1 is not needed, before dual phase 2; and by the dual simplex itself
 * after a run of degenerate iterations. The driver removes it at the end and cleans up with the primal
 * simplex.
 */
import { AT_LOWER, AT_ZERO, BASIC, type SimplexState } from "./simplex-state.js";

/** Perturbs nonbasic structural costs toward dual feasibility; recomputes reduced costs. */
export function perturbCosts(st: SimplexState): void {
  const rng = st.rng;
  const { n, cost, status, lower, upper } = st;
  let maxAbs = 0;
  for (let j = 0; j < n; j++) maxAbs = Math.max(maxAbs, Math.abs(cost[j]));
  const base = 5e-7 * Math.max(1, Math.sqrt(Math.min(maxAbs, 1e6)));
  for (let j = 0; j < n; j++) {
    const s = status[j];
    const r = rng.next();
    if (s === BASIC || s === AT_ZERO || lower[j] === upper[j]) continue;
    const mag = base * (1 + Math.abs(cost[j])) * (1 + r);
    cost[j] += s === AT_LOWER ? mag : -mag;
  }
  st.costsAltered = true;
  st.computeDual();
}
