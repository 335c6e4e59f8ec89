/**
 * The repair of a point whose integer columns, rounded, broke a row: the LP of the current node again
 * with every integer column fixed at its rounded value, unperturbed and with tight tolerances, so the
 * continuous columns make up for the rounding where they can. Two cases need it:
 *
 *  - a big-M trickle: y = 3e-7 in x − 1e7·y ≤ 0 passes the integrality tolerance and lets x = 3;
 *    with y fixed at 0 the LP puts x at 0 (or proves that the node holds no such point);
 *  - the LP's own tolerance on a row with large coefficients: rounding y from 1 − 5e-10 moves a row
 *    with coefficient 5e3 by 2.5e-6, past its 1e-6, and the LP at 1e-9 puts the continuous columns back
 *    inside (khb05250, set1ch).
 *
 * The column bounds and the basis are restored afterwards.
 */
import type { OfferVerdict } from "./incumbent.js";
import type { LpEngine } from "./lp.js";

/** The LP's tolerances for the re-solve: the point it leaves must pass the check at 1e-6 of the unscaled rows. */
const REPAIR_TOLERANCES = { primal: 1e-9, dual: 1e-9 };

export interface RepairHost {
  /** The engine with the node's bounds (and basis) loaded. */
  engine: LpEngine;
  integer: Uint8Array;
  deadline: number;
  /** Offers the re-solved point (checked on the original model by the incumbent). */
  offer(x: Float64Array): OfferVerdict;
}

export interface RepairResult {
  /** The offer's verdict; "rejected" when the LP with the integers fixed has no optimum; "stopped" at the deadline. */
  verdict: OfferVerdict | "stopped";
  iterations: number;
}

export function repairRounded(host: RepairHost, x: Float64Array): RepairResult {
  const { engine, integer } = host;
  const m = engine.model;
  const savedLower = m.colLower.slice();
  const savedUpper = m.colUpper.slice();
  const savedBasis = engine.getBasis();
  try {
    for (let j = 0; j < integer.length; j++) {
      if (!integer[j]) continue;
      const v = Math.min(Math.max(Math.round(x[j]), savedLower[j]), savedUpper[j]);
      if (m.colLower[j] !== v || m.colUpper[j] !== v) engine.setColumnBounds(j, v, v);
    }
    const r = engine.solve({ deadline: host.deadline, perturb: false, tolerances: REPAIR_TOLERANCES });
    if (r.status === "time_limit") return { verdict: "stopped", iterations: r.iterations };
    if (r.status !== "optimal") return { verdict: "rejected", iterations: r.iterations };
    return { verdict: host.offer(r.x!), iterations: r.iterations };
  } finally {
    for (let j = 0; j < integer.length; j++) {
      if (m.colLower[j] !== savedLower[j] || m.colUpper[j] !== savedUpper[j]) engine.setColumnBounds(j, savedLower[j], savedUpper[j]);
    }
    engine.setBasis(savedBasis);
  }
}
