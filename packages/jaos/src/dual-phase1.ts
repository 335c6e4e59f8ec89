/**
 * Dual phase 1.
 *
 * Dual phase 1 is the "auxiliary problem" approach (Fourer; Koberstein's thesis, §4.1): replace every
 * bound pair by a box around zero — free → [−1, 1], lower only → [0, 1], upper only → [−1, 0], boxed
 * or fixed → [0, 0] — and run dual phase 2 on it (with every variable boxed, any basis is dual
 * feasible). Its optimal basis is dual feasible for the original bounds exactly when its optimum is 0;
 * otherwise the original LP has no dual feasible basis (it is primal infeasible or unbounded) and the
 * driver continues with the primal simplex.
 */
import { runDual, type DualOptions } from "./simplex-dual.js";
import { AT_LOWER, AT_UPPER, AT_ZERO, BASIC, type SimplexState } from "./simplex-state.js";

export type DualPhase1Status = "dual_feasible" | "dual_infeasible" | "iteration_limit" | "time_limit" | "numerical";

export function dualPhase1(st: SimplexState, opt: DualOptions): DualPhase1Status {
  const { total, lower, upper, status, d } = st;
  for (let j = 0; j < total; j++) {
    const lo = lower[j];
    const up = upper[j];
    if (lo === -Infinity && up === Infinity) {
      lower[j] = -1;
      upper[j] = 1;
    } else if (up === Infinity) {
      lower[j] = 0;
      upper[j] = 1;
    } else if (lo === -Infinity) {
      lower[j] = -1;
      upper[j] = 0;
    } else {
      lower[j] = 0;
      upper[j] = 0;
    }
    if (status[j] !== BASIC) status[j] = d[j] >= 0 ? AT_LOWER : AT_UPPER;
  }
  st.computePrimal();
  const res = runDual(st, { deadline: opt.deadline, iterationLimit: opt.iterationLimit });
  st.restoreBounds();
  if (res.status !== "optimal") {
    st.fixNonbasicStatuses();
    st.computePrimal();
    // "infeasible" cannot be right (x = 0 is feasible for the auxiliary problem): numerical trouble
    return res.status === "cutoff" || res.status === "infeasible" ? "numerical" : res.status;
  }
  const tol = st.tol.dual;
  for (let j = 0; j < total; j++) {
    if (status[j] === BASIC) continue;
    const lo = lower[j];
    const up = upper[j];
    if (lo === up) status[j] = AT_LOWER;
    else if (d[j] > tol) status[j] = lo > -Infinity ? AT_LOWER : up < Infinity ? AT_UPPER : AT_ZERO;
    else if (d[j] < -tol) status[j] = up < Infinity ? AT_UPPER : lo > -Infinity ? AT_LOWER : AT_ZERO;
    else status[j] = st.nonbasicStatusFor(j, lo > -Infinity ? AT_LOWER : up < Infinity ? AT_UPPER : AT_ZERO);
  }
  st.computePrimal();
  return st.dualInfeasibility().count === 0 ? "dual_feasible" : "dual_infeasible";
}
