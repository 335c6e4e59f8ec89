/**
 * What a node's optimal LP decides when its point has no fractional column (mip.ts's head, "Integrality"):
 * the point is offered; when that does not close the node, the LP is solved again unperturbed with tight
 * tolerances, the point is repaired (its integers fixed, the continuous columns re-solved), or the node
 * branches on a trickle column; with nothing left to branch on it stays open as unresolved.
 */
import type { OfferVerdict, Rejection } from "./incumbent.js";
import type { LpEngine, LpResult } from "./lp.js";
import type { ProvenBound } from "./node-bound.js";
import type { MipNode } from "./node-queue.js";

/** Tolerances of the re-solve of a node LP whose integral point is not proven best in its node. */
const TIGHT_TOLERANCES = { primal: 1e-9, dual: 1e-9 };

/** A node's optimal LP, what it proves, its point and the columns to branch on. */
export interface NodeLp {
  r: LpResult;
  proof: ProvenBound | null;
  x: Float64Array;
  fractional: number[];
  /** An integer column the node branches on because rounding it broke a row (not a fractional one); -1 if none. */
  trickle: number;
}

/** The search's side of a node's integral point (mip.ts). */
export interface IntegralHost {
  engine(): LpEngine;
  deadline(): number;
  /** The bound the engine's current LP proves; `lp` is its result when it ended optimal. */
  prove(lp?: LpResult): ProvenBound | null;
  /** Offers a point of the presolved model as the incumbent. */
  offerVerdict(x: Float64Array): OfferVerdict;
  /** The node's LP again with the integer columns fixed at x's rounded values, its point offered. */
  repair(x: Float64Array): OfferVerdict | "stopped";
  pruneLevel(): number;
  fractionalColumns(x: Float64Array): number[];
  /** The integer column whose rounding in x moved its rows most, within the node's bounds; -1 if none (integrality.ts). */
  trickleColumn(x: Float64Array): number;
  addIterations(count: number): void;
  /** Keeps the node open as unresolved with `bound`, and why when a point failed the check. */
  keepUnresolved(bound: number, rejection?: Rejection | null): void;
  /** Why the last offered point was rejected. */
  lastRejection(): Rejection | null;
}

/**
 * The node LP's point with what it proves. A point with no fractional column is offered and, when it
 * does not close the node, re-solved, repaired or given a trickle column to branch on (see the file's
 * head); null when the node closed, "stopped" at the deadline.
 */
export function integralNode(host: IntegralHost, node: MipNode, solved: LpResult): NodeLp | null | "stopped" {
  const engine = host.engine();
  let r = solved;
  let proof = host.prove(r);
  let x = r.x!;
  let fractional = host.fractionalColumns(x);
  /** An integer column the node branches on because rounding it broke a row (not a fractional one). */
  let trickle = -1;
  if (fractional.length > 0) return { r, proof, x, fractional, trickle };
  let verdict = host.offerVerdict(x);
  if (!proof || proof.value < host.pruneLevel()) {
    // an integral LP point closes the node only when nothing in the node can be better: the LP
    // again, unperturbed with tight tolerances, from where it stopped
    const tight = engine.solve({ deadline: host.deadline(), perturb: false, tolerances: TIGHT_TOLERANCES });
    host.addIterations(tight.iterations);
    if (tight.status === "time_limit") return "stopped";
    if (tight.status === "infeasible") return null;
    if (tight.status === "optimal") {
      r = tight;
      proof = host.prove(r);
      x = r.x!;
      fractional = host.fractionalColumns(x);
      if (fractional.length === 0) verdict = host.offerVerdict(x);
    }
  }
  const unresolvedBound = () => Math.max(node.lowerBound, proof?.value ?? -Infinity);
  if (fractional.length === 0 && verdict === "rejected") {
    // its rounded point breaks the model: the integers are not integral enough for the rows they
    // multiply. The continuous columns re-solved with the integers fixed may make up for it; if
    // that does not close the node, branch on the integer that moved its rows most; with none left
    // to branch on, the node stays open as unresolved (nothing proves it holds no better point).
    const repaired = host.repair(x);
    if (repaired === "stopped") return "stopped";
    if (proof && proof.value >= host.pruneLevel()) return null;
    trickle = host.trickleColumn(x);
    if (trickle >= 0) fractional = [trickle];
    else {
      host.keepUnresolved(unresolvedBound(), host.lastRejection());
      return null;
    }
  }
  if (fractional.length === 0 && proof && proof.value < host.pruneLevel()) {
    // integral within the tolerance, yet the LP proves more than the incumbent: its integers sit up
    // to 1e-6 off their values (tight cuts whose right-hand sides carry safety margins), and the
    // rounded point kept the LP's continuous values. Those re-solved with the integers fixed give
    // the point's best completion, which usually closes the node (knapsack-cover.test.ts, seed 24).
    if (host.repair(x) === "stopped") return "stopped";
  }
  if (fractional.length === 0) {
    if (!proof || proof.value < host.pruneLevel()) host.keepUnresolved(unresolvedBound());
    return null;
  }
  return { r, proof, x, fractional, trickle };
}
