/**
 * A proven lower bound on an LP from ANY row multipliers y (the Lagrangian argument of Neumaier and
 * Shcherbina, "Safe bounds in linear and mixed-integer linear programming", Math. Prog. 99, 2004).
 * For every x with rowLower ≤ Ax ≤ rowUpper and colLower ≤ x ≤ colUpper, writing d = c − Aᵀy,
 *
 *   cᵀx = Σ_i y_i (a_iᵀx) + Σ_j d_j x_j ≥ Σ_i min(y_i·rowLower_i, y_i·rowUpper_i) + Σ_j min(d_j·l_j, d_j·u_j).
 *
 * No optimality, feasibility or factorisation is assumed: the duals a simplex ends with (on scaled,
 * perturbed, shifted data, within tolerances) only decide how good the bound is, never whether it
 * holds. Multipliers whose row side is infinite (y_i > 0 on a row without a lower side, y_i < 0 without
 * an upper one) are set to 0 first, which keeps the bound finite. A column whose d_j has the sign
 * that sends it toward an infinite bound makes the bound −∞ (the caller then falls back); `implied`
 * supplies finite bounds that the rows imply for such columns (`impliedColumnBounds`).
 *
 * The one departure from exactness: against an infinite bound only d_j = 0 exactly gives a finite
 * term, and a basic column's d_j is 0 only up to the residual of the solve that gave y, a
 * dual-degenerate nonbasic one's up to the simplex's tolerance. Such a d_j, within 1e-9 of
 * |c_j| + Σ_i|a_ij y_i|, is taken as 0: the bound then holds exactly for costs that differ from the
 * model's by at most that much in those columns (the optimality check of verify.ts allows 1e-7).
 * pp08a has dozens of such columns (flows and stocks with no upper bound) at every node. The rule
 * holds for a column without a bound of its own even where the rows imply one (`implied`): on a big-M
 * row x ≤ 1e9·y that bound is 1e9, and a residual d_j of −1e-9 taken at it cost the whole bound 1.
 *
 * Rounding: d_j is computed in floating point, so each d_j carries an allowance γ·(|c_j| + Σ|a_ij y_i|)
 * (γ = (k+2)·u for k products, u = 2⁻⁵³) and a term min(d_j l_j, d_j u_j) is taken at the worst d_j in
 * that interval; the sum is compensated (Neumaier) and what remains of its error (u per product,
 * 2u of the sum) is subtracted too. On well-scaled data the bound sits 1e-15–1e-13 relative below
 * the LP value at an optimal basis.
 */
import type { LpModel } from "./model.js";
import { toRowWise } from "./sparse.js";

const UNIT_ROUNDOFF = 2 ** -53;
/**
 * A d_j against an infinite bound within this of 0, relative to |c_j| + Σ_i|a_ij y_i|, counts as 0.
 * Below the simplex's dual tolerance (1e-7) and verify.ts's (1e-7 relative).
 */
const ZERO_REDUCED_COST = 1e-9;
/** Headroom on each error estimate for the rounding of the estimate itself. */
const ALLOWANCE_MARGIN = 1.01;

export interface ColumnBox {
  lower: Float64Array;
  upper: Float64Array;
}

export interface LagrangianBound {
  /** A lower bound on min cᵀx + offset over the model's rows and column bounds; −Infinity when none follows from y. */
  value: number;
  /**
   * d = c − Aᵀy of the multipliers used, each entry moved toward 0 by its rounding allowance (0 where
   * the sign is uncertain): moving column j by t away from the bound its term used raises the bound by
   * at least |reducedCosts_j|·t, which is what reduced-cost fixing needs.
   */
  reducedCosts: Float64Array;
  /** Each column's rounding allowance: the computed d_j is within this of c_j − a_jᵀy. */
  allowances: Float64Array;
  /** Columns against an infinite bound whose d_j was small enough to be taken as 0. */
  zeroedColumns: number;
  /** Columns whose term needed an infinite bound (value is −Infinity when this is > 0). */
  unboundedColumns: number;
  /**
   * Those columns: the sign d_j must take for a finite term (+1: only the lower bound is finite, −1:
   * only the upper; 0: neither), and how far d_j must move for it (its distance from that sign plus
   * its rounding allowance).
   */
  open: OpenColumn[];
}

export interface OpenColumn {
  col: number;
  need: 1 | -1 | 0;
  shortfall: number;
}

function openColumn(col: number, d: number, err: number, lo: number, up: number): OpenColumn {
  const need = lo > -Infinity ? 1 : up < Infinity ? -1 : 0;
  return { col, need, shortfall: err + (need === 1 ? Math.max(0, -d) : need === -1 ? Math.max(0, d) : Math.abs(d)) };
}

/** The bound of the model (its current column bounds, `implied` where those are infinite) for multipliers y. */
export function lagrangianBound(model: LpModel, y: ArrayLike<number>, implied?: ColumnBox): LagrangianBound {
  const { rows: m, cols: n, a } = model;
  const reducedCosts = new Float64Array(n);
  const allowances = new Float64Array(n);
  const used = new Float64Array(m);
  const sum = new CompensatedSum();
  sum.add(model.offset);
  for (let i = 0; i < m; i++) {
    const yi = y[i]!;
    if (!Number.isFinite(yi)) return { value: -Infinity, reducedCosts, allowances, zeroedColumns: 0, unboundedColumns: 0, open: [] };
    const side = yi > 0 ? model.rowLower[i]! : yi < 0 ? model.rowUpper[i]! : 0;
    if (!Number.isFinite(side)) continue; // a multiplier the row cannot carry: 0 is as valid as any
    used[i] = yi;
    sum.add(yi * side);
  }
  let allowance = 0;
  const open: OpenColumn[] = [];
  let zeroedColumns = 0;
  for (let j = 0; j < n; j++) {
    let d = model.cost[j]!;
    let size = Math.abs(d);
    for (let k = a.start[j]; k < a.start[j + 1]; k++) {
      const t = a.value[k] * used[a.index[k]]!;
      d -= t;
      size += Math.abs(t);
    }
    const err = (a.start[j + 1] - a.start[j] + 2) * UNIT_ROUNDOFF * size * ALLOWANCE_MARGIN;
    allowances[j] = err;
    const ownLo = model.colLower[j]!;
    const ownUp = model.colUpper[j]!;
    const lo = implied && ownLo === -Infinity ? implied.lower[j]! : ownLo;
    const up = implied && ownUp === Infinity ? implied.upper[j]! : ownUp;
    const finite = ownLo > -Infinity ? ownLo : ownUp < Infinity ? ownUp : 0;
    if (
      (ownLo === -Infinity || ownUp === Infinity) &&
      Math.abs(d) <= Math.max(err, ZERO_REDUCED_COST * size) &&
      !boxCostsLittle(d, err, lo, up, finite, size)
    ) {
      // against an infinite bound of its own only d_j = 0 exactly gives a finite term, which floating
      // point cannot show: a d_j this small is taken as 0 (see the header) — also where the rows imply
      // a bound too far to cost little, as on a big-M row x ≤ 1e9·y, where a residual of 1e-9 taken at
      // x = 1e9 lost the whole bound 1
      zeroedColumns++;
      sum.add(d * finite);
      allowance += err * Math.abs(finite);
    } else if (lo > -Infinity && up < Infinity) {
      if (d - err > 0) {
        // surely positive: the term is smallest at the lower bound
        reducedCosts[j] = d - err;
        sum.add(d * lo);
        allowance += err * Math.abs(lo);
      } else if (d + err < 0) {
        reducedCosts[j] = d + err;
        sum.add(d * up);
        allowance += err * Math.abs(up);
      } else {
        // sign unknown: either bound may be the minimiser
        sum.add(Math.min(d * lo, d * up));
        allowance += err * Math.max(Math.abs(lo), Math.abs(up));
      }
    } else if (d > 0 && lo > -Infinity) {
      reducedCosts[j] = d - err;
      sum.add(d * lo);
      allowance += err * Math.abs(lo);
    } else if (d < 0 && up < Infinity) {
      reducedCosts[j] = d + err;
      sum.add(d * up);
      allowance += err * Math.abs(up);
    } else open.push(openColumn(j, d, err, lo, up));
  }
  if (open.length > 0) return { value: -Infinity, reducedCosts, allowances, zeroedColumns, unboundedColumns: open.length, open };
  // products round by u each; the compensated sum leaves 2u of its result (plus negligible u² terms)
  allowance += UNIT_ROUNDOFF * sum.magnitude + 2 * UNIT_ROUNDOFF * Math.abs(sum.value()) + sum.count * UNIT_ROUNDOFF * UNIT_ROUNDOFF * sum.magnitude;
  const value = sum.value() - allowance * ALLOWANCE_MARGIN;
  return { value: Number.isNaN(value) ? -Infinity : value, reducedCosts, allowances, zeroedColumns, unboundedColumns: 0, open };
}

/**
 * Whether a column's term over the box [lo, up] (its own bounds and those the rows imply), with its
 * rounding allowance err taken at the box's far side, is within the zero rule's own tolerance of the
 * term that rule gives (d·finite, allowance at |finite|): then the box proves the term exactly at no
 * real cost, and is used.
 */
function boxCostsLittle(d: number, err: number, lo: number, up: number, finite: number, size: number): boolean {
  if (!(lo > -Infinity && up < Infinity)) return false;
  const cost = d * finite - Math.min(d * lo, d * up) + err * (Math.max(Math.abs(lo), Math.abs(up)) - Math.abs(finite));
  return cost <= ZERO_REDUCED_COST * size * Math.max(1, Math.abs(finite));
}

/**
 * Finite bounds the rows imply for columns whose own bound is infinite (activity bounds, a few
 * passes so that chains resolve), loosened by 1e-6 of the magnitudes involved. Every point of the LP
 * lies in this box, so a Lagrangian bound over it is a bound of the LP; since a branch-and-bound node
 * only tightens column bounds, the box of the root serves every node. Columns with finite bounds keep
 * them; a column no row bounds keeps its infinite side.
 */
export function impliedColumnBounds(model: LpModel, lower: Float64Array, upper: Float64Array, passes = 3): ColumnBox {
  const lo = lower.slice();
  const up = upper.slice();
  const rowWise = toRowWise(model.a);
  for (let pass = 0; pass < passes; pass++) {
    let changed = false;
    for (let i = 0; i < model.rows; i++) {
      const rl = model.rowLower[i]!;
      const ru = model.rowUpper[i]!;
      // activity bounds: finite part, count of infinite contributions, magnitude
      let minFinite = 0;
      let maxFinite = 0;
      let minInf = 0;
      let maxInf = 0;
      let size = 0;
      for (let k = rowWise.start[i]; k < rowWise.start[i + 1]; k++) {
        const v = rowWise.value[k]!;
        const j = rowWise.index[k]!;
        const [low, high] = v > 0 ? [v * lo[j]!, v * up[j]!] : [v * up[j]!, v * lo[j]!];
        if (Number.isFinite(low)) {
          minFinite += low;
          size += Math.abs(low);
        } else minInf++;
        if (Number.isFinite(high)) {
          maxFinite += high;
          size += Math.abs(high);
        } else maxInf++;
      }
      if (minInf > 1 && maxInf > 1) continue;
      for (let k = rowWise.start[i]; k < rowWise.start[i + 1]; k++) {
        const v = rowWise.value[k]!;
        const j = rowWise.index[k]!;
        if (Number.isFinite(lo[j]!) && Number.isFinite(up[j]!)) continue;
        const [low, high] = v > 0 ? [v * lo[j]!, v * up[j]!] : [v * up[j]!, v * lo[j]!];
        // the rest of the row's activity, without column j
        const restMin = Number.isFinite(low) ? (minInf === 0 ? minFinite - low : NaN) : minInf === 1 ? minFinite : NaN;
        const restMax = Number.isFinite(high) ? (maxInf === 0 ? maxFinite - high : NaN) : maxInf === 1 ? maxFinite : NaN;
        // v·x_j ≤ ru − restMin and v·x_j ≥ rl − restMax
        const slack = 1e-6 * (size + Math.abs(rl === -Infinity ? 0 : rl) + Math.abs(ru === Infinity ? 0 : ru) + 1);
        const upperAct = Number.isFinite(ru) && Number.isFinite(restMin) ? ru - restMin + slack : Infinity;
        const lowerAct = Number.isFinite(rl) && Number.isFinite(restMax) ? rl - restMax - slack : -Infinity;
        const newUp = v > 0 ? upperAct / v : lowerAct / v;
        const newLo = v > 0 ? lowerAct / v : upperAct / v;
        if (up[j] === Infinity && Number.isFinite(newUp)) {
          up[j] = newUp + 1e-6 * Math.abs(newUp);
          changed = true;
        }
        if (lo[j] === -Infinity && Number.isFinite(newLo)) {
          lo[j] = newLo - 1e-6 * Math.abs(newLo);
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  return { lower: lo, upper: up };
}

/** Neumaier's compensated summation, with the sum of magnitudes for the error allowance. */
class CompensatedSum {
  private sum = 0;
  private carry = 0;
  magnitude = 0;
  count = 0;

  add(v: number): void {
    const t = this.sum + v;
    if (Math.abs(this.sum) >= Math.abs(v)) this.carry += this.sum - t + v;
    else this.carry += v - t + this.sum;
    this.sum = t;
    this.magnitude += Math.abs(v);
    this.count++;
  }

  value(): number {
    return this.sum + this.carry;
  }
}
