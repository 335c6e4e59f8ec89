/**
 * The LP driver: scaling, the order of the simplex phases, removal of perturbations, and the checks
 * that stand behind every verdict.
 *
 * Path: factorise the (slack or warm) basis → on a cold start, boxed columns flipped to their dual
 * feasible bound → if it is not dual feasible, dual phase 1 (or, from a primal feasible warm basis, the
 * primal simplex), with the costs perturbed before dual phase 1 (or before phase 2 when phase 1 is not
 * needed) → dual phase 2 → remove perturbation; leftover dual infeasibilities are cleaned up by primal
 * phase 2.
 * When dual phase 1 shows there is no dual feasible basis, the primal simplex (phase 1, then 2)
 * decides between infeasible and unbounded.
 *
 * Verdicts: "optimal" only when the unscaled solution satisfies rows and bounds (relative 1e-6) with no
 * dual infeasibility under the true costs; "infeasible" only with a Farkas certificate that passes
 * `checkFarkas` on the unscaled model; "unbounded" only with a feasible point and a ray that pass
 * `checkUnboundedRay`. Anything else is "error" with a message.
 */
import { checkFarkas, checkUnboundedRay } from "./certificates.js";
import { dualPhase1 } from "./dual-phase1.js";
import { perturbCosts } from "./perturbation.js";
import { maxViolation, objectiveValue, type LpModel } from "./model.js";
import { applyScaling, computeScaling, type Scaling } from "./scaling.js";
import { runDual } from "./simplex-dual.js";
import { runPrimal, type PrimalOutcome } from "./simplex-primal.js";
import { BASIC, DEFAULT_TOLERANCES, SimplexState } from "./simplex-state.js";

export type LpStatus = "optimal" | "infeasible" | "unbounded" | "cutoff" | "time_limit" | "iteration_limit" | "error";

export interface LpSolveOptions {
  /** performance.now() value after which the solve stops with "time_limit". */
  deadline: number;
  iterationLimit?: number;
  /** Minimisation objective (with offset) above which the solve may stop with "cutoff". */
  cutoff?: number;
  /** Perturb costs before dual phase 2 (default true). */
  perturb?: boolean;
  /** Feasibility tolerances of this solve (default DEFAULT_TOLERANCES); the cleanup after a failed
   * optimality check tightens them. */
  tolerances?: { primal: number; dual: number };
}

export interface LpResult {
  status: LpStatus;
  /** cᵀx + offset (minimisation sense); meaningful for "optimal". */
  objective: number;
  /** Unscaled column values: the optimum, or for "unbounded" the feasible point of the certificate. */
  x: Float64Array | null;
  ray: Float64Array | null;
  farkas: Float64Array | null;
  iterations: number;
  /**
   * For "iteration_limit" and "time_limit" reached inside dual phase 2 with true costs: the dual
   * objective, a valid lower bound on the LP optimum.
   */
  bound?: number;
  message?: string;
}

const FEASIBILITY_CHECK = 1e-6;
/** The primal tolerance is tightened down to this when unscaled rows stay violated. */
const MIN_PRIMAL_TOL = 1e-11;
const MAX_ROUNDS = 12;

export class LpEngine {
  /** The unscaled model; its column bounds change through setColumnBounds. */
  readonly model: LpModel;
  readonly state: SimplexState;
  private readonly scaling: Scaling;
  private readonly scaled: LpModel;
  private hasBasis = false;
  /** The running solve's options and its first iteration (for `limits` and `result`). */
  private solveOptions: LpSolveOptions = { deadline: Infinity };
  private startIter = 0;

  constructor(model: LpModel, options: { scale?: boolean } = {}) {
    this.model = { ...model, colLower: model.colLower.slice(), colUpper: model.colUpper.slice() };
    this.scaling = options.scale === false ? { row: new Float64Array(model.rows).fill(1), col: new Float64Array(model.cols).fill(1) } : computeScaling(model);
    this.scaled = applyScaling(this.model, this.scaling);
    this.state = new SimplexState(this.scaled);
  }

  get iterations(): number {
    return this.state.iterations;
  }

  setColumnBounds(j: number, lower: number, upper: number): void {
    this.model.colLower[j] = lower;
    this.model.colUpper[j] = upper;
    this.scaled.colLower[j] = lower / this.scaling.col[j];
    this.scaled.colUpper[j] = upper / this.scaling.col[j];
  }

  /** Basis statuses (one per column then one per row), for warm starts. */
  getBasis(): Int8Array {
    return this.state.status.slice();
  }

  setBasis(status: Int8Array): void {
    this.hasBasis = this.state.setBasis(status);
  }

  /**
   * Row r of the simplex tableau of the current (factored, optimal) basis in unscaled terms:
   * x_B(r) + Σ_{j nonbasic} α_j x_j = 0 over structural columns j < n and logicals n + i
   * (logical = −row activity). Returns the basic variable and α (exact zeros outside `nonzeros`).
   * `into` (length n + m), when given, is written instead of a new array, at the entries of `nonzeros`
   * only: the others keep what they held (a caller reading many rows reads α through `nonzeros`).
   */
  tableauRow(r: number, into?: Float64Array): { basic: number; alpha: Float64Array; nonzeros: Int32Array } {
    const st = this.state;
    const rho = new Float64Array(st.m);
    rho[r] = 1;
    st.lu.btran(rho);
    const row = st.computePivotRow(rho);
    const basic = st.basicIndex[r];
    const scaleBasic = basic < st.n ? this.scaling.col[basic] : 1 / this.scaling.row[basic - st.n];
    const alpha = into ?? new Float64Array(st.total);
    const nonzeros = st.rowNz.slice(0, st.rowNzCount);
    for (const j of nonzeros) {
      if (st.status[j] === BASIC) {
        alpha[j] = 0;
        continue;
      }
      const scaleJ = j < st.n ? this.scaling.col[j] : 1 / this.scaling.row[j - st.n];
      alpha[j] = (row[j] * scaleBasic) / scaleJ;
    }
    return { basic, alpha, nonzeros };
  }

  /**
   * The row duals y = B⁻ᵀc_B of the current (optimal) basis, unscaled: c = Aᵀy + d for the
   * minimisation this engine solves (a logical is −row activity, so y ≥ 0 on an active lower side).
   */
  rowDuals(): Float64Array {
    if (!this.state.factorValid) this.state.refactor();
    // y only: the reduced costs are priced afresh by the next solve before anything reads them
    return this.unscaleRow(this.state.computeRowDuals());
  }

  /** Forget the basis: the next solve starts from the slack basis. */
  resetBasis(): void {
    this.hasBasis = false;
  }

  solve(opt: LpSolveOptions): LpResult {
    const st = this.state;
    this.startIter = st.iterations;
    this.solveOptions = opt;

    for (let j = 0; j < this.model.cols; j++) {
      // an empty column box is its own certificate
      if (this.model.colLower[j] > this.model.colUpper[j]) return this.result("infeasible", { message: `column ${j} has lower bound above upper bound` });
    }
    st.restoreBounds();
    st.restoreCosts();
    st.tol.primal = opt.tolerances?.primal ?? DEFAULT_TOLERANCES.primal;
    st.tol.dual = opt.tolerances?.dual ?? DEFAULT_TOLERANCES.dual;
    const cold = !this.hasBasis;
    if (cold) st.setSlackBasis();
    else st.fixNonbasicStatuses();
    this.hasBasis = true;
    if (!st.factorValid) st.refactor();
    st.computePrimal();
    st.computeDual();
    // a cold start whose only dual infeasibilities are boxed columns: flip them and go dual at once
    if (cold && st.flipBoxedToDualFeasibility() > 0) st.computePrimal();
    const cutoff = opt.cutoff === undefined ? undefined : opt.cutoff - this.model.offset;

    let perturbed = false;
    let lastProblem = "no convergence";
    for (let round = 0; round < MAX_ROUNDS; round++) {
      if (st.dualInfeasibility().count > 0) {
        // A primal feasible warm start goes on with the primal simplex; a cold one takes dual phase 1
        // even when the slack basis is primal feasible (cycle: 10,058 primal iterations → 1,975).
        let primalNeeded = !(cold && round === 0) && st.primalInfeasibility().count === 0;
        if (!primalNeeded) {
          // Perturbed before phase 1, not after: the auxiliary problem is as dual degenerate as the
          // original (model5: 23,888 phase-1 iterations unperturbed, 8,124 perturbed; HiGHS 8,213).
          if (opt.perturb !== false && !perturbed) {
            perturbCosts(st);
            perturbed = true;
          }
          const ph1 = dualPhase1(st, this.limits());
          if (ph1 === "time_limit" || ph1 === "iteration_limit") return this.result(ph1);
          if (ph1 === "numerical") {
            lastProblem = "numerical trouble in dual phase 1";
            primalNeeded = true;
          } else primalNeeded = ph1 === "dual_infeasible";
        }
        if (primalNeeded) {
          const res = runPrimal(st, this.limits());
          const verdict = this.primalVerdict(res);
          if (verdict) return verdict;
          lastProblem = `primal simplex ended ${res.status}`;
          continue;
        }
      }
      if (opt.perturb !== false && !perturbed) {
        perturbCosts(st);
        perturbed = true;
      }
      const res = runDual(st, { ...this.limits(), cutoff });
      if (res.status === "cutoff") return this.result("cutoff");
      if (res.status === "time_limit" || res.status === "iteration_limit") {
        const valid = !st.costsAltered && st.dualInfeasibility().count === 0;
        return this.result(res.status, valid ? { bound: st.objective() + this.model.offset } : {});
      }
      if (res.status === "optimal") {
        if (st.costsAltered) {
          st.restoreCosts();
          st.computeDual();
          if (st.dualInfeasibility().count > 0) continue; // primal cleanup next round
        }
        const done = this.optimalVerdict();
        if (done) return done;
        lastProblem = "solution failed the feasibility check";
        continue;
      }
      if (res.status === "infeasible") {
        const y = this.unscaleRow(res.farkasRow!);
        if (checkFarkas(this.model, y) !== null) return this.result("infeasible", { farkas: y });
        // not a proof: continue from this basis with true costs
        lastProblem = "dual ray failed the Farkas check";
        st.restoreCosts();
        st.computeDual();
        const pres = runPrimal(st, this.limits());
        const verdict = this.primalVerdict(pres);
        if (verdict) return verdict;
        continue;
      }
      // numerical trouble: restart from the slack basis once, then give up
      lastProblem = "numerical trouble in the dual simplex";
      st.restoreCosts();
      st.setSlackBasis();
      st.refactor();
      st.computePrimal();
      st.computeDual();
    }
    return this.result("error", { message: lastProblem });
  }

  /** The deadline and the iterations left of the running solve's limit. */
  private limits(): { deadline: number; iterationLimit: number } {
    const opt = this.solveOptions;
    return { deadline: opt.deadline, iterationLimit: Math.max(0, (opt.iterationLimit ?? Infinity) - (this.state.iterations - this.startIter)) };
  }

  /** The running solve's result (methods rather than closures made per solve: a solve runs at every node). */
  private result(status: LpStatus, extra: Partial<LpResult> = {}): LpResult {
    return { status, objective: NaN, x: null, ray: null, farkas: null, iterations: this.state.iterations - this.startIter, ...extra };
  }

  /** Interprets a primal simplex ending; null means "keep going". */
  private primalVerdict(res: PrimalOutcome): LpResult | null {
    const st = this.state;
    if (res.status === "time_limit" || res.status === "iteration_limit") return this.result(res.status);
    if (res.status === "optimal") {
      if (st.costsAltered) {
        st.restoreCosts();
        st.computeDual();
        return null;
      }
      return this.optimalVerdict();
    }
    if (res.status === "infeasible") {
      const y = this.unscaleRow(res.farkasRow!);
      if (checkFarkas(this.model, y) !== null) return this.result("infeasible", { farkas: y });
      return null;
    }
    if (res.status === "unbounded") {
      const { q, dir, alphaCol } = res.ray!;
      const raw = new Float64Array(st.total);
      raw[q] = dir;
      for (let k = 0; k < st.m; k++) raw[st.basicIndex[k]] = -dir * alphaCol[k];
      const ray = new Float64Array(st.n);
      for (let j = 0; j < st.n; j++) ray[j] = raw[j] * this.scaling.col[j];
      const x = this.unscaledColumns();
      if (checkUnboundedRay(this.model, x, ray)) return this.result("unbounded", { x, ray });
      if (st.costsAltered) {
        st.restoreCosts();
        st.computeDual();
      }
      return null;
    }
    return null;
  }

  private optimalVerdict(): LpResult | null {
    const st = this.state;
    let x = this.unscaledColumns();
    if (maxViolation(this.model, x) > FEASIBILITY_CHECK) {
      st.refactor();
      st.computePrimal();
      st.computeDual();
      x = this.unscaledColumns();
      if (maxViolation(this.model, x) > FEASIBILITY_CHECK) {
        // feasible to the scaled tolerance but not unscaled (badly scaled rows): tighten and go on
        st.tol.primal = Math.max(st.tol.primal / 10, MIN_PRIMAL_TOL);
        return null;
      }
    }
    if (st.dualInfeasibility().count > 0 || st.primalInfeasibility().count > 0) return null;
    return this.result("optimal", { x, objective: objectiveValue(this.model, x) });
  }

  /** Reduced costs of the structural columns in unscaled terms (0 for basic columns). */
  reducedCosts(): Float64Array {
    const d = new Float64Array(this.state.n);
    for (let j = 0; j < d.length; j++) d[j] = this.state.d[j] / this.scaling.col[j];
    return d;
  }

  unscaledColumns(): Float64Array {
    const x = new Float64Array(this.state.n);
    for (let j = 0; j < x.length; j++) x[j] = this.state.x[j] * this.scaling.col[j];
    return x;
  }

  private unscaleRow(rho: Float64Array): Float64Array {
    const y = new Float64Array(rho.length);
    for (let i = 0; i < y.length; i++) y[i] = rho[i] * this.scaling.row[i];
    return y;
  }
}
