/**
 * The bound a node LP proves, for pruning, the reported dual bound and reduced-cost fixing. It is the
 * Lagrangian bound (safe-bound.ts) of the duals the simplex ended with, computed on the engine's
 * unscaled model (the presolved model plus the root cuts, with the node's column bounds): valid
 * whatever the simplex's scaling, perturbation, shifts or tolerances did, and never above the LP's
 * true optimum.
 *
 * Where the bound needs an infinite column bound (a d_j that sends its column toward an infinite
 * bound, beyond what safe-bound.ts takes as 0, and no finite bound implied by the rows), an optimal
 * node LP's final basis is refactorised and checked on the model (verify.ts) and its objective taken
 * only when the check passes; otherwise the LP proves nothing and the caller must not prune on it.
 * See docs/decisions.md, "jaos: a MILP's bound only from proven LP answers".
 */
import type { LpEngine, LpResult } from "./lp.js";
import { objectiveValue } from "./model.js";
import { lagrangianBound, type ColumnBox, type LagrangianBound } from "./safe-bound.js";
import { AT_LOWER, AT_UPPER, BASIC } from "./simplex-state.js";
import { checkBasis } from "./verify.js";

export interface ProvenBound {
  value: number;
  /** Reduced costs that reduced-cost fixing may use with `value` (all 0 for a verified basis). */
  reducedCosts: Float64Array;
  /** Basis statuses matching the signs of `reducedCosts` (at lower for positive, at upper for negative). */
  status: Int8Array;
  how: "lagrangian" | "verified";
}

/**
 * The bound proved by the engine's current state: its duals (any stopping point: optimal, cut off,
 * iteration limit), or for an optimal `lp` whose Lagrangian bound is −∞ the checked basis. Null when
 * nothing is proved.
 */
export function provenLpBound(engine: LpEngine, implied: ColumnBox | undefined, lp?: LpResult): ProvenBound | null {
  const model = engine.model;
  const bound = lagrangianBound(model, engine.rowDuals(), implied);
  if (bound.value > -Infinity) return fromLagrangian(bound);
  if (lp?.status !== "optimal") return null;
  const check = checkBasis(model, engine.getBasis());
  if (!check?.ok) return null;
  return {
    value: objectiveValue(model, check.x),
    reducedCosts: new Float64Array(model.cols),
    status: new Int8Array(model.cols).fill(BASIC),
    how: "verified",
  };
}

function fromLagrangian(bound: LagrangianBound): ProvenBound {
  const n = bound.reducedCosts.length;
  const status = new Int8Array(n);
  for (let j = 0; j < n; j++) status[j] = bound.reducedCosts[j]! > 0 ? AT_LOWER : bound.reducedCosts[j]! < 0 ? AT_UPPER : BASIC;
  return { value: bound.value, reducedCosts: bound.reducedCosts, status, how: "lagrangian" };
}
