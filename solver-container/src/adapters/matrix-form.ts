import type { Problem } from "../../../functions/core/problem/schema.js";

/**
 * The canonical problem as index-based arrays: what an in-memory solver API wants (HiGHS's passModel,
 * SCIP's variable/constraint calls, the WebAssembly HiGHS). Building the model from arrays leaves no
 * room for name or file-format trouble: names never reach the solver.
 *
 * - Bounds use `null` for an infinite side (JSON has no Infinity).
 * - Binary variables become integers with bounds clipped to [0, 1].
 * - Repeated terms (the same variable twice in a row or in the objective) are summed, because several
 *   APIs reject a repeated index.
 * - Quadratic objective terms are merged per unordered pair: entry k means `qValues[k]·x[qRow[k]]·x[qCol[k]]`
 *   with `qRow[k] <= qCol[k]`.
 */
export interface MatrixForm {
  name: string;
  sense: "minimize" | "maximize";
  offset: number;
  numCols: number;
  numRows: number;
  colNames: string[];
  colCost: number[];
  colLower: (number | null)[];
  colUpper: (number | null)[];
  /** 0 continuous, 1 integer. */
  integrality: (0 | 1)[];
  rowLower: (number | null)[];
  rowUpper: (number | null)[];
  /** Compressed sparse rows: row i has entries rowStarts[i] .. rowStarts[i+1]-1. */
  rowStarts: number[];
  rowIndices: number[];
  rowValues: number[];
  qRow: number[];
  qCol: number[];
  qValues: number[];
}

export function toMatrixForm(problem: Problem): MatrixForm {
  const index = new Map<string, number>();
  problem.variables.forEach((v, j) => {
    index.set(v.name, j);
  });
  const col = (name: string): number => {
    const j = index.get(name);
    if (j === undefined) throw new Error(`unknown variable "${name}"`);
    return j;
  };

  const colCost = new Array<number>(problem.variables.length).fill(0);
  for (const t of problem.objective.terms) colCost[col(t.var)] += t.coef;

  const colLower: (number | null)[] = [];
  const colUpper: (number | null)[] = [];
  const integrality: (0 | 1)[] = [];
  for (const v of problem.variables) {
    if (v.type === "binary") {
      colLower.push(Math.max(v.lb ?? 0, 0));
      colUpper.push(Math.min(v.ub ?? 1, 1));
      integrality.push(1);
    } else {
      colLower.push(v.lb);
      colUpper.push(v.ub);
      integrality.push(v.type === "integer" ? 1 : 0);
    }
  }

  const rowStarts: number[] = [0];
  const rowIndices: number[] = [];
  const rowValues: number[] = [];
  const rowLower: (number | null)[] = [];
  const rowUpper: (number | null)[] = [];
  for (const c of problem.constraints) {
    const merged = new Map<number, number>();
    for (const t of c.terms) {
      const j = col(t.var);
      merged.set(j, (merged.get(j) ?? 0) + t.coef);
    }
    for (const [j, value] of [...merged].sort((a, b) => a[0] - b[0])) {
      if (value === 0) continue;
      rowIndices.push(j);
      rowValues.push(value);
    }
    rowStarts.push(rowIndices.length);
    rowLower.push(c.lb);
    rowUpper.push(c.ub);
  }

  const pairs = new Map<string, { i: number; j: number; value: number }>();
  for (const q of problem.objective.quadratic ?? []) {
    const a = col(q.var1);
    const b = col(q.var2);
    const [i, j] = a <= b ? [a, b] : [b, a];
    const key = `${i},${j}`;
    const entry = pairs.get(key);
    if (entry) entry.value += q.coef;
    else pairs.set(key, { i, j, value: q.coef });
  }
  const quadratic = [...pairs.values()].filter((p) => p.value !== 0).sort((x, y) => x.j - y.j || x.i - y.i);

  return {
    name: problem.name,
    sense: problem.sense,
    offset: problem.objective.constant,
    numCols: problem.variables.length,
    numRows: problem.constraints.length,
    colNames: problem.variables.map((v) => v.name),
    colCost,
    colLower,
    colUpper,
    integrality,
    rowLower,
    rowUpper,
    rowStarts,
    rowIndices,
    rowValues,
    qRow: quadratic.map((p) => p.i),
    qCol: quadratic.map((p) => p.j),
    qValues: quadratic.map((p) => p.value),
  };
}

/** A solution vector in column order → the original names. */
export function namedSolution(form: Pick<MatrixForm, "colNames">, values: readonly number[]): Record<string, number> {
  const out: Record<string, number> = {};
  form.colNames.forEach((name, j) => {
    out[name] = values[j]!;
  });
  return out;
}
