/**
 * The root cut loop: rounds of Gomory mixed-integer cuts (cuts.ts), c-MIR cuts on aggregated rows
 * (mir.ts, with the lifted flow covers of the same aggregated rows where `flowCovers` says so) and, on
 * models with lot-sizing paths, their (l,S) inequalities (path-cuts.ts) on the root LP; when those find nothing, clique cuts from the binary rows' conflict graph (clique-cuts.ts). Each
 * round adds the violated cuts, builds the extended model and re-solves it with the dual simplex from
 * the previous basis extended by the cuts' slacks (basic). It stops when no integer column is
 * fractional, when no cut is found, when the bound gains less than 1e-5 (relative) in three
 * consecutive rounds, after 50 rounds, or once its simplex iterations reach a multiple of the root
 * LP's (below: no model pays an unbounded loop). Lifted cover cuts on the model's binary knapsack rows
 * (knapsack-cover.ts) are an option, off in the solver: in every round, or joining the others where
 * the last two rules would stop the loop, with the stall count restarted, until a round finds no cover
 * or stalls three times again. Cuts whose slack is basic at the end are dropped (they do not bind), the
 * rest stay for the search. If an extended LP does not end optimal, that round's cuts are discarded.
 */
import { CliqueSeparator } from "./clique-cuts.js";
import { type Cut, gomoryCuts, keepRows, withRows } from "./cuts.js";
import { isFractional } from "./heuristics.js";
import { KnapsackCoverSeparator } from "./knapsack-cover.js";
import { LpEngine, type LpResult } from "./lp.js";
import type { LpModel } from "./model.js";
import { MirSeparator } from "./mir.js";
import type { ScoredCut } from "./mir-rounding.js";
import { PathSeparator } from "./path-cuts.js";
import { BASIC } from "./simplex-state.js";
import { toRowWise } from "./sparse.js";

const CUT_ROUNDS = 50;
const CUTS_PER_ROUND = 100;
/** A round gaining less than this (relative to the bound) counts toward the stall limit. */
const CUT_STALL_GAIN = 1e-5;
const CUT_STALL_ROUNDS = 3;
/**
 * The loop starts no new round once its simplex iterations reach this multiple of the root LP's, or
 * ITERATION_FLOOR where the root LP took few (p0033: 18, where 50 rounds take about 400). Every loop
 * of the 46 wide and scale MILPs fits (the longest, mitre's, 4,118 from a root LP of 3,377; retail3's
 * 3,389 from 206; the largest multiple of a root LP of 300 or more iterations, exp-1-500-5-5's, 5x at
 * 3,067): only a runaway loop is cut.
 */
const ITERATION_SHARE = 4;
const ITERATION_FLOOR = 5000;

/** Lifted flow covers in the solver's loop (RootCutOptions.flowCovers): off, see there. */
const FLOW_COVERS = false;
const KINDS = ["gomory", "mir", "flowCover", "path", "cover", "clique"] as const;

export interface RootCutResult {
  model: LpModel;
  engine: LpEngine;
  /** The final root LP (optimal) of `engine`. */
  root: LpResult;
  cutsAdded: number;
  cutsKept: number;
  iterations: number;
  /** Cuts added over the rounds, by separator. */
  byKind: { gomory: number; mir: number; flowCover: number; path: number; cover: number; clique: number };
}

/** One round of the loop, for diagnostics (a bound trace per round): its bound and its cuts by source. */
export interface CutRound {
  round: number;
  bound: number;
  /** The round's cuts by separator. */
  cuts: RootCutResult["byKind"];
  /** Cut rows in the LP after the round's non-binding ones were dropped. */
  kept: number;
  /** Simplex iterations of the loop so far. */
  iterations: number;
}

export interface RootCutOptions {
  /**
   * Lifted covers on the model's knapsack rows (knapsack-cover.ts), off unless named: in every round
   * from the first, or only after the other separators stall (see the header). Neither paid over the
   * wide and scale MILPs without losses (docs/bench/jaos.md, "the knapsack covers without mitre's
   * loss"), so the solver leaves them off.
   */
  knapsackCovers?: "everyRound" | "afterStall";
  /**
   * Lifted flow covers of c-MIR's aggregated, bound-substituted rows read as single-node flow sets
   * (mir.ts's `coverCuts`); absent: FLOW_COVERS. Off: with them pp08aCUTS ended at a wrong optimum,
   * c-MIR cuts over the cut rows cutting off its optimal point, cause not found (docs/decisions.md).
   */
  flowCovers?: boolean;
  /** Called after each round (diagnostics: a bound trace per round). */
  onRound?: (round: CutRound) => void;
}

export function rootCutLoop(model: LpModel, engine: LpEngine, root: LpResult, deadline: number, options: RootCutOptions = {}): RootCutResult {
  const baseRows = model.rows;
  const baseModel = model;
  let current = root;
  let iterations = 0;
  let cutsAdded = 0;
  let stall = 0;
  const iterationBudget = Math.max(ITERATION_FLOOR, ITERATION_SHARE * root.iterations);
  const paths = new PathSeparator(model);
  const covers = options.knapsackCovers ? new KnapsackCoverSeparator(model) : null;
  // "afterStall": covers join once the other separators stall or run dry, with a stall count of their
  // own, and end the loop in the first round they find nothing (in every round from the first they
  // move the small gains the stall rule reads: mitre's loop stopped at 89 % of the gap, not 100 %).
  let coversOn = options.knapsackCovers === "everyRound";
  const coverPhase = () => options.knapsackCovers === "afterStall" && !coversOn && covers!.knapsacks.length > 0;
  let cliques: CliqueSeparator | null = null; // built when first needed: most loops never get there
  const byKind = { gomory: 0, mir: 0, flowCover: 0, path: 0, cover: 0, clique: 0 };
  const flowCovers = options.flowCovers ?? FLOW_COVERS;
  // c-MIR separation scans every start row and its aggregations in every round; where it finds no cut at
  // the root LP's point it found none in any later round of the 46 wide + scale MILPs (air03, l152lav,
  // misc06, stein27, wedding_16), while misc06's seven rounds spent two thirds of the loop's time in it:
  // a first round without a c-MIR cut switches it off for the rest of the loop
  let mirOn = true;
  for (let round = 0; round < CUT_ROUNDS && iterations < iterationBudget && performance.now() < deadline; round++) {
    let fractional = false;
    for (let j = 0; j < model.cols && !fractional; j++) if (model.integer[j] && isFractional(current.x![j])) fractional = true;
    if (!fractional) break;
    // one row-wise copy of the round's matrix for both separators
    const rowWise = toRowWise(model.a);
    const kinds = {
      gomory: gomoryCuts(engine, model, current.x!, CUTS_PER_ROUND, rowWise),
      // over the cuts in the LP too; with the lifted flow covers of the same aggregated rows
      mir: mirOn ? new MirSeparator(model, flowCovers, baseRows, rowWise).separate(current.x!, CUTS_PER_ROUND, deadline) : [],
      path: paths.paths.length > 0 ? paths.separate(current.x!, CUTS_PER_ROUND).map((c) => c.cut) : [],
      cover: covers && coversOn ? covers.separate(current.x!, CUTS_PER_ROUND).map((c) => c.cut) : [],
      clique: [] as Cut[],
    };
    if (round === 0 && kinds.mir.length === 0) mirOn = false;
    if (options.knapsackCovers === "afterStall" && coversOn && kinds.cover.length === 0) break;
    // clique cuts only once the other separators find nothing: beside them in every round they
    // change the loop's path and its trees (p2756, p0282: lower root bound or more nodes), while
    // after them they only extend a loop that would stop (10teams: solved in 13 nodes, unsolved without)
    if (kinds.gomory.length + kinds.mir.length + kinds.path.length + kinds.cover.length === 0) {
      cliques ??= new CliqueSeparator(baseModel);
      kinds.clique = cliques.separate(current.x!, CUTS_PER_ROUND).map((c) => c.cut);
    }
    const cuts = [...kinds.gomory, ...kinds.mir.map((c) => c.cut), ...kinds.path, ...kinds.cover, ...kinds.clique];
    if (cuts.length === 0) {
      if (!coverPhase()) break;
      coversOn = true;
      stall = 0;
      continue;
    }
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
    const counts = countKinds(kinds);
    for (const k of KINDS) byKind[k] += counts[k];
    const gain = r.objective - current.objective;
    // cuts that stopped binding only slow the next rounds' LPs down
    const compact = dropSlackCuts({ model: extended, engine: next, root: r, cutsAdded, cutsKept: 0, iterations, byKind }, baseRows, deadline);
    model = compact.model;
    engine = compact.engine;
    iterations = compact.iterations;
    current = compact.root;
    options.onRound?.({
      round,
      bound: current.objective,
      cuts: counts,
      kept: model.rows - baseRows,
      iterations,
    });
    stall = gain <= CUT_STALL_GAIN * Math.max(1, Math.abs(current.objective)) ? stall + 1 : 0;
    if (stall >= CUT_STALL_ROUNDS) {
      if (!coverPhase()) break;
      coversOn = true;
      stall = 0;
    }
  }
  const result: RootCutResult = { model, engine, root: current, cutsAdded, cutsKept: model.rows - baseRows, iterations, byKind };
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
  return { ...result, model: kept, engine, root: r, cutsKept: kept.rows - baseRows, iterations };
}

/** A round's cuts by separator, the c-MIR separator's split into its c-MIR cuts and its flow covers. */
function countKinds(kinds: { gomory: Cut[]; mir: ScoredCut[]; path: Cut[]; cover: Cut[]; clique: Cut[] }): RootCutResult["byKind"] {
  const flowCover = kinds.mir.filter((c) => c.kind === "cover").length;
  return {
    gomory: kinds.gomory.length,
    mir: kinds.mir.length - flowCover,
    flowCover,
    path: kinds.path.length,
    cover: kinds.cover.length,
    clique: kinds.clique.length,
  };
}

/** The root cut loop's result when no cut is sought (a sub-MIP). */
export const noCuts = { iterations: 0, cutsAdded: 0, cutsKept: 0, byKind: { gomory: 0, mir: 0, flowCover: 0, path: 0, cover: 0, clique: 0 } };
