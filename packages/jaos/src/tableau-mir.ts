/**
 * c-MIR cuts on simplex tableau rows. A tableau row x_B + Σ_{j nonbasic} ᾱ_j x_j = 0 (columns and row
 * logicals) is an aggregation of the model's rows with the basis inverse's multipliers: it combines
 * rows that share only integer columns, which the path aggregation of mir.ts (through continuous
 * columns) cannot. The Gomory cut of cuts.ts rounds it once, with divisor 1 and each column measured
 * from the bound it sits at; here the same row goes through the c-MIR separator instead: variable-bound
 * substitution, the divisor search and the complementation choice (mir.ts), both ways round.
 *
 * The tableau is that of the LP the engine solved, so the separator must be built on the same model
 * (cut rows included): a cut row's logical is a row like any other, and those cuts are valid globally.
 */
import type { LpEngine } from "./lp.js";
import { rowActivities, type LpModel } from "./model.js";
import type { LogicalTerm, MirSeparator, ScoredCut } from "./mir.js";
import { BASIC } from "./simplex-state.js";

/** Basic fractionality below which (or above 1 − this) a row is not tried. */
const MIN_FRAC = 0.01;
/** Tableau rows with an entry larger than this are not trusted (as in cuts.ts). */
const MAX_TABLEAU = 1e6;
/** Entries below this times the row's largest are cancellation residue of the basis inverse. */
const ROUNDOFF = 1e-12;

/** Up to `maxCuts` violated c-MIR cuts from the tableau rows of fractional basic integer columns. */
export function tableauMirCuts(engine: LpEngine, model: LpModel, separator: MirSeparator, x: Float64Array, maxCuts: number, deadline: number): ScoredCut[] {
  const st = engine.state;
  const n = model.cols;
  const activity = rowActivities(model, x);
  const sources: { r: number; score: number }[] = [];
  for (let r = 0; r < st.m; r++) {
    const j = st.basicIndex[r];
    if (j >= n || !model.integer[j]) continue;
    const f = x[j] - Math.floor(x[j]);
    if (f < MIN_FRAC || f > 1 - MIN_FRAC) continue;
    sources.push({ r, score: Math.min(f, 1 - f) });
  }
  sources.sort((a, b) => b.score - a.score || a.r - b.r);
  const found: ScoredCut[] = [];
  for (const { r } of sources.slice(0, maxCuts)) {
    if (performance.now() > deadline) break;
    const row = engine.tableauRow(r);
    let max = 1;
    for (const j of row.nonzeros) if (st.status[j] !== BASIC) max = Math.max(max, Math.abs(row.alpha[j]));
    if (max > MAX_TABLEAU) continue;
    const columns: { j: number; a: number }[] = [{ j: row.basic, a: 1 }];
    const logicals: LogicalTerm[] = [];
    for (const j of row.nonzeros) {
      const a = row.alpha[j];
      if (a === 0 || st.status[j] === BASIC || Math.abs(a) <= ROUNDOFF * max) continue;
      if (j < n) columns.push({ j, a });
      else logicals.push({ i: j - n, a, value: -activity[j - n] });
    }
    found.push(...separator.fromEquation(columns, logicals, x));
  }
  found.sort((p, q) => q.efficacy - p.efficacy);
  return found.slice(0, maxCuts);
}
