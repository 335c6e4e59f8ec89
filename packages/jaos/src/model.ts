/**
 * jaos's internal LP/MILP form: minimise cᵀx + offset subject to rowLower ≤ Ax ≤ rowUpper and
 * colLower ≤ x ≤ colUpper, with infinite bounds as ±Infinity and A column-compressed. A maximisation
 * is stored negated (`sign` = −1) and negated back when results are reported. `modelFromProblem`
 * builds it from a problem by names (problem.ts).
 */
import type { JaosProblem } from "./problem.js";
import { cscFromTriplets, type CscMatrix } from "./sparse.js";

export interface LpModel {
  readonly rows: number;
  readonly cols: number;
  readonly a: CscMatrix;
  readonly cost: Float64Array;
  readonly colLower: Float64Array;
  readonly colUpper: Float64Array;
  readonly rowLower: Float64Array;
  readonly rowUpper: Float64Array;
  /** Constant added to cᵀx (minimisation sense). */
  readonly offset: number;
  /** 1 for columns that must take integer values. */
  readonly integer: Uint8Array;
}

export interface ModelMapping {
  model: LpModel;
  /** +1 for minimise, −1 for maximise: reported objective = sign · (cᵀx + offset). */
  sign: 1 | -1;
  colNames: string[];
  rowNames: string[];
}

/** Integer bounds are rounded inward; a bound within 1e-9 of an integer counts as that integer. */
function roundInteger(lb: number, ub: number): [number, number] {
  return [Math.ceil(lb - 1e-9), Math.floor(ub + 1e-9)];
}

export function modelFromProblem(problem: JaosProblem): ModelMapping {
  const n = problem.variables.length;
  const m = problem.constraints.length;
  const sign = problem.sense === "maximize" ? -1 : 1;
  const colIndex = new Map<string, number>();
  const colLower = new Float64Array(n);
  const colUpper = new Float64Array(n);
  const integer = new Uint8Array(n);
  problem.variables.forEach((v, j) => {
    colIndex.set(v.name, j);
    let lb = v.lb ?? -Infinity;
    let ub = v.ub ?? Infinity;
    if (v.type === "binary") {
      lb = Math.max(lb, 0);
      ub = Math.min(ub, 1);
    }
    if (v.type !== "continuous") {
      integer[j] = 1;
      [lb, ub] = roundInteger(lb, ub);
    }
    colLower[j] = lb;
    colUpper[j] = ub;
  });
  const cost = new Float64Array(n);
  for (const t of problem.objective.terms) cost[colIndex.get(t.var)!] += sign * t.coef;
  const rowIdx: number[] = [];
  const colIdx: number[] = [];
  const vals: number[] = [];
  const rowLower = new Float64Array(m);
  const rowUpper = new Float64Array(m);
  problem.constraints.forEach((c, i) => {
    rowLower[i] = c.lb ?? -Infinity;
    rowUpper[i] = c.ub ?? Infinity;
    for (const t of c.terms) {
      rowIdx.push(i);
      colIdx.push(colIndex.get(t.var)!);
      vals.push(t.coef);
    }
  });
  const a = cscFromTriplets(m, n, rowIdx, colIdx, vals);
  return {
    model: { rows: m, cols: n, a, cost, colLower, colUpper, rowLower, rowUpper, offset: sign * problem.objective.constant, integer },
    sign,
    colNames: problem.variables.map((v) => v.name),
    rowNames: problem.constraints.map((c) => c.name),
  };
}

/** Row activities Ax. */
export function rowActivities(model: LpModel, x: ArrayLike<number>): Float64Array {
  const act = new Float64Array(model.rows);
  const { start, index, value } = model.a;
  for (let j = 0; j < model.cols; j++) {
    const xj = x[j]!;
    if (xj === 0) continue;
    for (let k = start[j]; k < start[j + 1]; k++) act[index[k]] += value[k] * xj;
  }
  return act;
}

/** cᵀx + offset (minimisation sense). */
export function objectiveValue(model: LpModel, x: ArrayLike<number>): number {
  let s = model.offset;
  for (let j = 0; j < model.cols; j++) s += model.cost[j] * x[j]!;
  return s;
}

/** Where a point breaks the model most: a column's bound or a row's side, by how much (relative). */
export interface Violation {
  /** Relative to max(1, |bound|); 0 when nothing is broken. */
  amount: number;
  where: "column" | "row";
  index: number;
}

/** Largest violation of bounds and rows, absolute and relative to max(1, |bound|). */
export function maxViolation(model: LpModel, x: ArrayLike<number>): number {
  return worstViolation(model, x).amount;
}

/** The largest violation of bounds and rows (relative to max(1, |bound|)) and where it is. */
export function worstViolation(model: LpModel, x: ArrayLike<number>): Violation {
  // (no closure: this runs after every LP solve, and a closure made per call costs more than the loops)
  const worst: Violation = { amount: 0, where: "column", index: -1 };
  for (let j = 0; j < model.cols; j++) {
    // an infinite bound gives NaN here (−∞ − x over ∞): never a violation
    const below = relativeExcess(model.colLower[j] - x[j]!, model.colLower[j]);
    if (below > worst.amount) noteWorst(worst, below, "column", j);
    const above = relativeExcess(x[j]! - model.colUpper[j], model.colUpper[j]);
    if (above > worst.amount) noteWorst(worst, above, "column", j);
  }
  const act = rowActivities(model, x);
  for (let i = 0; i < model.rows; i++) {
    const below = relativeExcess(model.rowLower[i] - act[i], model.rowLower[i]);
    if (below > worst.amount) noteWorst(worst, below, "row", i);
    const above = relativeExcess(act[i] - model.rowUpper[i], model.rowUpper[i]);
    if (above > worst.amount) noteWorst(worst, above, "row", i);
  }
  return worst;
}

/** A violation `v` of a bound relative to max(1, |bound|) (NaN for an infinite bound). */
function relativeExcess(v: number, bound: number): number {
  return v / Math.max(1, Math.abs(bound));
}

function noteWorst(worst: Violation, amount: number, where: Violation["where"], index: number): void {
  worst.amount = amount;
  worst.where = where;
  worst.index = index;
}
