/**
 * The root cut loop: rounds of Gomory mixed-integer cuts (cuts.ts), c-MIR cuts on aggregated rows
 * (mir.ts) and, on models with lot-sizing paths, their (l,S) inequalities (path-cuts.ts) on the root
 * LP. Each round adds the violated cuts, builds the extended model and re-solves it with the dual simplex from the previous
 * basis extended by the cuts' slacks (basic). It stops when no integer column is fractional, when no cut
 * is found, when the bound gains less than 1e-5 (relative) in three consecutive rounds, or after 50
 * rounds. Cuts whose slack is basic at the end are dropped (they do not bind), the rest stay for the
 * search. If an extended LP does not end optimal, that round's cuts are discarded.
 */
import { gomoryCuts, keepRows, withRows } from "./cuts.js";
import { isFractional } from "./heuristics.js";
import { LpEngine, type LpResult } from "./lp.js";
import type { LpModel } from "./model.js";
import { MirSeparator } from "./mir.js";
import { PathSeparator } from "./path-cuts.js";
import { BASIC } from "./simplex-state.js";

const CUT_ROUNDS = 50;
const CUTS_PER_ROUND = 100;
/** A round gaining less than this (relative to the bound) counts toward the stall limit. */
const CUT_STALL_GAIN = 1e-5;
const CUT_STALL_ROUNDS = 3;

export interface RootCutResult {
  model: LpModel;
  engine: LpEngine;
  /** The final root LP (optimal) of `engine`. */
  root: LpResult;
  cutsAdded: number;
  cutsKept: number;
  iterations: number;
}

/** One round of the loop, for diagnostics (a bound trace per round): its bound and its cuts by source. */
export interface CutRound {
  round: number;
  bound: number;
  gomory: number;
  mir: number;
  path: number;
  /** Cut rows in the LP after the round's non-binding ones were dropped. */
  kept: number;
  /** Simplex iterations of the loop so far. */
  iterations: number;
}

export function rootCutLoop(model: LpModel, engine: LpEngine, root: LpResult, deadline: number, onRound?: (round: CutRound) => void): RootCutResult {
  const baseRows = model.rows;
  let current = root;
  let iterations = 0;
  let cutsAdded = 0;
  let stall = 0;
  const mir = new MirSeparator(model);
  const paths = new PathSeparator(model);
  for (let round = 0; round < CUT_ROUNDS && performance.now() < deadline; round++) {
    let fractional = false;
    for (let j = 0; j < model.cols && !fractional; j++) if (model.integer[j] && isFractional(current.x![j])) fractional = true;
    if (!fractional) break;
    const gomory = gomoryCuts(engine, model, current.x!, CUTS_PER_ROUND);
    const mirCuts = mir.separate(current.x!, CUTS_PER_ROUND, deadline).map((c) => c.cut);
    const pathCuts = paths.paths.length > 0 ? paths.separate(current.x!, CUTS_PER_ROUND).map((c) => c.cut) : [];
    const cuts = [...gomory, ...mirCuts, ...pathCuts];
    if (cuts.length === 0) break;
    const extended = withRows(model, cuts);
    const next = new LpEngine(extended);
    const basis = engine.getBasis();
    const status = new Int8Array(extended.cols + extended.rows);
    status.set(basis.subarray(0, model.cols + model.rows));
    status.fill(BASIC, model.cols + model.rows);
    next.setBasis(status);
    const r = next.solve({ deadline });
    iterations += r.iterations;
    if (r.status !== "optimal") break;
    cutsAdded += cuts.length;
    const gain = r.objective - current.objective;
    // cuts that stopped binding only slow the next rounds' LPs down
    const compact = dropSlackCuts({ model: extended, engine: next, root: r, cutsAdded, cutsKept: 0, iterations }, baseRows, deadline);
    model = compact.model;
    engine = compact.engine;
    iterations = compact.iterations;
    current = compact.root;
    onRound?.({ round, bound: current.objective, gomory: gomory.length, mir: mirCuts.length, path: pathCuts.length, kept: model.rows - baseRows, iterations });
    stall = gain <= CUT_STALL_GAIN * Math.max(1, Math.abs(current.objective)) ? stall + 1 : 0;
    if (stall >= CUT_STALL_ROUNDS) break;
  }
  const result: RootCutResult = { model, engine, root: current, cutsAdded, cutsKept: model.rows - baseRows, iterations };
  return model.rows > baseRows ? dropSlackCuts(result, baseRows, deadline) : result;
}

/** Removes cut rows whose slack is basic (not binding), keeping the rest of the basis. */
function dropSlackCuts(result: RootCutResult, baseRows: number, deadline: number): RootCutResult {
  const { model } = result;
  const n = model.cols;
  const basis = result.engine.getBasis();
  const keep = new Uint8Array(model.rows);
  for (let i = 0; i < model.rows; i++) keep[i] = i < baseRows || basis[n + i] !== BASIC ? 1 : 0;
  if (keep.every((v) => v === 1)) return result;
  const kept = keepRows(model, keep);
  const status = new Int8Array(n + kept.rows);
  status.set(basis.subarray(0, n));
  let w = n;
  for (let i = 0; i < model.rows; i++) if (keep[i]) status[w++] = basis[n + i];
  const engine = new LpEngine(kept);
  engine.setBasis(status);
  const r = engine.solve({ deadline });
  const iterations = result.iterations + r.iterations;
  if (r.status !== "optimal") return { ...result, iterations }; // keep the full set
  return { model: kept, engine, root: r, cutsAdded: result.cutsAdded, cutsKept: kept.rows - baseRows, iterations };
}
