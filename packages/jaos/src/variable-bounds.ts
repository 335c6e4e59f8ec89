import type { LpModel } from "./model.js";
import type { CsrMatrix } from "./sparse.js";

/** x ≤ coef·y + constant (upper) or x ≥ coef·y + constant (lower), from a two-column row. */
export interface VariableBound {
  y: number;
  coef: number;
  constant: number;
}

export interface VariableBounds {
  /** Per continuous column, the lower and upper variable bounds its two-column rows give, in row order. */
  vlb: VariableBound[][];
  vub: VariableBound[][];
  /** Rows that define a variable bound. */
  boundRow: Uint8Array;
}

/**
 * The variable bounds of a model: every row a·x + b·y over one continuous column x and one integer
 * column y with finite bounds gives, per finite side, x ≤ (−b/a)·y + side/a or x ≥ … (by the sign of a
 * and the side). c-MIR substitutes them; the path cuts read a setup variable's x ≤ U·y from them.
 */
export function variableBounds(model: LpModel, rows: CsrMatrix): VariableBounds {
  const vlb: VariableBound[][] = Array.from({ length: model.cols }, () => []);
  const vub: VariableBound[][] = Array.from({ length: model.cols }, () => []);
  const boundRow = new Uint8Array(model.rows);
  for (let i = 0; i < model.rows; i++) {
    if (rows.start[i + 1] - rows.start[i] !== 2) continue;
    let c = -1;
    let y = -1;
    let a = 0;
    let b = 0;
    for (let k = rows.start[i]; k < rows.start[i + 1]; k++) {
      const j = rows.index[k];
      if (model.integer[j]) {
        y = j;
        b = rows.value[k];
      } else {
        c = j;
        a = rows.value[k];
      }
    }
    if (c < 0 || y < 0 || a === 0 || !Number.isFinite(model.colLower[y]) || !Number.isFinite(model.colUpper[y])) continue;
    // a·x + b·y ≤ U  →  x ≤ (−b/a)·y + U/a when a > 0, x ≥ … when a < 0; and mirrored for ≥ L
    const sides: [number, 1 | -1][] = [];
    if (Number.isFinite(model.rowUpper[i])) sides.push([model.rowUpper[i], 1]);
    if (Number.isFinite(model.rowLower[i])) sides.push([model.rowLower[i], -1]);
    for (const [rhs, sense] of sides) {
      const bound = { y, coef: -b / a, constant: rhs / a };
      if (a * sense > 0) vub[c]!.push(bound);
      else vlb[c]!.push(bound);
      boundRow[i] = 1;
    }
  }
  return { vlb, vub, boundRow };
}
