import fc from "fast-check";
import type { ProblemInput } from "../../functions/core/problem/schema.js";

/**
 * Small MILPs of the kind every operations model contains — a big-M link between a continuous and a binary
 * variable — whose optimum (or infeasibility) is known by construction, for the numerics suite (issue 24).
 * Each family is a fast-check arbitrary over a recipe of small integers mapped to a problem, so a failure
 * shrinks to a small recipe. The data are integers (M too), so every reference is computed exactly.
 *
 * The reference: every family, once its binaries (and, for near-integral, its integers) are fixed, leaves
 * an LP whose optimum has a closed form — a box with at most one sum row (fractional knapsack: fill the
 * cheapest first), or a chain of difference constraints (the earliest-start schedule). Each builder
 * enumerates the integer assignments (at most 64) and takes the best, and returns that optimum's point
 * (`witness`). Why each closed form is the LP optimum is said at the family; the big M never binds at any
 * point the enumeration uses, because all data other than M are below 100 and M ≥ 1000.
 * test/unit/test/support/numerics-cases.test.ts re-derives every reference independently: it enumerates
 * the integer columns of the problem as written and solves each remaining LP by vertex enumeration.
 *
 * Families:
 *  - fixed-charge: open facility j (y_j) at cost f_j, ship x_j ≤ M·y_j at c_j each, Σx ≥ D.
 *  - indicator: y_i = 1 ⇒ x_i ≥ L_i written x_i − M·y_i ≥ L_i − M (a bonus for reaching a level), and
 *    optionally y_i = 0 ⇒ x_i = 0, a shared resource Σx ≤ R and Σy ≥ K.
 *  - disjunctive: jobs on one machine, either order of each pair by a big-M pair of rows, release and due
 *    dates, weighted completion plus a makespan weight.
 *  - semi-continuous: x_j = 0 or L_j ≤ x_j ≤ U_j (U_j = M where uncapped), demand Σx = D or ≥ D.
 *  - near-integral: A·x + z ≥ r with A = 10⁷…10⁹ and r/A ≤ 1e-7, so the LP relaxation sits within 1e-7
 *    of an integer that is not the answer (and the mirrored ≤ form).
 * Any case may be widened (`widen`): rows ×10⁰…10³, continuous columns substituted x = 10^-k·x′ (k ≤ 2)
 * and the objective ×10⁻²…10³, for coefficient ranges up to M·10⁵.
 *
 * Infeasible cases are infeasible by a margin of at least 1 with every integer at an integer (a due date
 * missed by a whole time unit, a demand short by a whole unit, a count of bonuses not reachable). Note that
 * a tolerance relative to a row's side does not see such margins where M sits on the side
 * (x − M·y ≥ L − M at y = 1 allows x = L − 1e-6·M, i.e. L − 1000 at M = 1e9): the suite judges by the
 * known verdict and optimum, never by a tolerance alone.
 */

export const FAMILIES = ["fixed-charge", "indicator", "disjunctive", "semi-continuous", "near-integral"] as const;
export type NumericsFamily = (typeof FAMILIES)[number];

export interface NumericsCase {
  family: NumericsFamily;
  /** The largest coefficient of the construction: its big M (or the near-integral rows' scale). */
  bigM: number;
  widening: Widening | null;
  expected: "optimal" | "infeasible";
  /** The optimum in the problem's own sense, constant included; null when infeasible. */
  optimum: number | null;
  /** A point at which the optimum is attained; null when infeasible. */
  witness: Record<string, number> | null;
  problem: ProblemInput;
}

type Column = NonNullable<ProblemInput["variables"]>[number];
type Row = NonNullable<ProblemInput["constraints"]>[number];
type Term = Row["terms"][number];
type Base = Omit<NumericsCase, "family" | "bigM" | "widening">;

const int = (min: number, max: number) => fc.integer({ min, max });
const INFEASIBLE: Base = { expected: "infeasible", optimum: null, witness: null, problem: { variables: [{ name: "none" }] } };

/** M = m·10^e for e in 3..9 (at most 1e9): shrinks towards 1000. */
export const bigM = fc
  .record({ exponent: int(3, 9), mantissa: fc.constantFrom(1, 2, 5) })
  .map(({ exponent, mantissa }) => Math.min(1e9, mantissa * 10 ** exponent));

const terms = (entries: [string, number][]): Term[] => entries.filter(([, coef]) => coef !== 0).map(([name, coef]) => ({ var: name, coef }));
const sum = (values: readonly number[]) => values.reduce((s, v) => s + v, 0);

/** Every 0/1 vector of length n. */
function* assignments(n: number): Generator<number[]> {
  for (let mask = 0; mask < 2 ** n; mask++) yield Array.from({ length: n }, (_, j) => (mask >> j) & 1);
}

/**
 * min Σ c_j x_j over lo ≤ x ≤ hi with Σ x ≥ need (or = need when `exact`), c ≥ 0: start at the lower
 * bounds and fill what is missing cheapest first. Optimal by the exchange argument (a unit moved from a
 * dearer to a cheaper column never costs more); infeasible when even the upper bounds fall short, or, for
 * `exact`, when the lower bounds overshoot. Returns the point, or null.
 */
function fillCheapest(cost: readonly number[], lo: readonly number[], hi: readonly number[], need: number, exact: boolean): number[] | null {
  if (lo.some((l, j) => l > hi[j]!)) return null;
  const x = [...lo];
  let missing = need - sum(lo);
  if (missing < 0) return exact ? null : x;
  for (const j of cost.map((_, j) => j).sort((a, b) => cost[a]! - cost[b]!)) {
    const add = Math.min(missing, hi[j]! - x[j]!);
    x[j]! += add;
    missing -= add;
  }
  return missing > 0 ? null : x;
}

/** The best of the candidates (value, point) under minimisation, or the infeasible case. */
function best(candidates: Iterable<{ value: number; point: Record<string, number> } | null>, problem: ProblemInput): Base {
  let found: { value: number; point: Record<string, number> } | null = null;
  for (const c of candidates) if (c && (found === null || c.value < found.value)) found = c;
  if (!found) return { ...INFEASIBLE, problem };
  return { expected: "optimal", optimum: problem.sense === "maximize" ? -found.value : found.value, witness: found.point, problem };
}

// ---------------------------------------------------------------- fixed charge

export interface FixedChargeRecipe {
  facilities: { fixed: number; unit: number; cap: number | null }[];
  demand: number;
  M: number;
}

/** Per y: x_j ∈ [0, cap_j·y_j] (M·y_j ≥ D never binds) and Σx ≥ D, a fractional knapsack. */
export function fixedCharge(r: FixedChargeRecipe): Base {
  const n = r.facilities.length;
  const problem: ProblemInput = {
    name: "fixed charge",
    variables: [
      ...r.facilities.map((_, j): Column => ({ name: `y${j}`, type: "binary" })),
      ...r.facilities.map((f, j): Column => ({ name: `x${j}`, ub: f.cap })),
    ],
    objective: {
      terms: terms(
        r.facilities.flatMap((f, j): [string, number][] => [
          [`y${j}`, f.fixed],
          [`x${j}`, f.unit],
        ]),
      ),
    },
    constraints: [
      ...r.facilities.map(
        (_, j): Row => ({
          name: `link${j}`,
          terms: terms([
            [`x${j}`, 1],
            [`y${j}`, -r.M],
          ]),
          ub: 0,
        }),
      ),
      { name: "demand", terms: terms(r.facilities.map((_, j) => [`x${j}`, 1])), lb: r.demand },
    ],
  };
  const candidates = [...assignments(n)].map((y) => {
    const hi = r.facilities.map((f, j) => y[j]! * Math.min(f.cap ?? r.M, r.M));
    const x = fillCheapest(
      r.facilities.map((f) => f.unit),
      new Array(n).fill(0),
      hi,
      r.demand,
      false,
    );
    if (!x) return null;
    const value = sum(r.facilities.map((f, j) => f.fixed * y[j]! + f.unit * x[j]!));
    return {
      value,
      point: Object.fromEntries(
        r.facilities.flatMap((_, j) => [
          [`y${j}`, y[j]!],
          [`x${j}`, x[j]!],
        ]),
      ),
    };
  });
  return best(candidates, problem);
}

const fixedChargeRecipe = fc.record({
  facilities: fc.array(fc.record({ fixed: int(1, 20), unit: int(0, 5), cap: fc.option(int(1, 10), { nil: null }) }), { minLength: 1, maxLength: 6 }),
  demand: int(1, 12),
  M: bigM,
});

// ---------------------------------------------------------------- indicator

export interface IndicatorRecipe {
  items: { bonus: number; unit: number; level: number; room: number; offMeansZero: boolean }[];
  resource: number;
  atLeast: number;
  M: number;
}

/**
 * max Σ g_i y_i − c_i x_i. Per y: x_i ∈ [L_i·y_i, U_i] (or [0, 0] when off and `offMeansZero`) and
 * Σx ≤ R. With c ≥ 0 the least point x = L·y is optimal, and if it breaks Σx ≤ R every point does.
 * The rows are void when their binary says so: x − M·y ≥ L − M at y = 0 since L ≤ 10 < M; x − M·y ≤ 0
 * at y = 1 since U ≤ 12 < M.
 */
export function indicator(r: IndicatorRecipe): Base {
  const n = r.items.length;
  const rows: Row[] = r.items.flatMap((it, i): Row[] => [
    {
      name: `on${i}`,
      terms: terms([
        [`x${i}`, 1],
        [`y${i}`, -r.M],
      ]),
      lb: it.level - r.M,
    },
    ...(it.offMeansZero
      ? [
          {
            name: `off${i}`,
            terms: terms([
              [`x${i}`, 1],
              [`y${i}`, -r.M],
            ]),
            ub: 0,
          },
        ]
      : []),
  ]);
  rows.push({ name: "resource", terms: terms(r.items.map((_, i) => [`x${i}`, 1])), ub: r.resource });
  if (r.atLeast > 0) rows.push({ name: "count", terms: terms(r.items.map((_, i) => [`y${i}`, 1])), lb: r.atLeast });
  const problem: ProblemInput = {
    name: "indicator",
    sense: "maximize",
    variables: [...r.items.map((_, i): Column => ({ name: `y${i}`, type: "binary" })), ...r.items.map((it, i): Column => ({ name: `x${i}`, ub: it.room }))],
    objective: {
      terms: terms(
        r.items.flatMap((it, i): [string, number][] => [
          [`y${i}`, it.bonus],
          [`x${i}`, -it.unit],
        ]),
      ),
    },
    constraints: rows,
  };
  const candidates = [...assignments(n)].map((y) => {
    const x = r.items.map((it, i) => it.level * y[i]!);
    if (r.items.some((it, i) => x[i]! > it.room) || sum(x) > r.resource || sum(y) < r.atLeast) return null;
    // Minimised: the negated objective.
    const value = -sum(r.items.map((it, i) => it.bonus * y[i]! - it.unit * x[i]!));
    return {
      value,
      point: Object.fromEntries(
        r.items.flatMap((_, i) => [
          [`y${i}`, y[i]!],
          [`x${i}`, x[i]!],
        ]),
      ),
    };
  });
  return best(candidates, problem);
}

const indicatorRecipe = fc.record({
  items: fc.array(fc.record({ bonus: int(0, 30), unit: int(0, 5), level: int(1, 10), room: int(0, 12), offMeansZero: fc.boolean() }), {
    minLength: 1,
    maxLength: 5,
  }),
  resource: int(0, 30),
  atLeast: int(0, 2),
  M: bigM,
});

// ---------------------------------------------------------------- disjunctive scheduling

export interface DisjunctiveRecipe {
  jobs: { duration: number; release: number; weight: number; due: number | null }[];
  makespanWeight: number;
  M: number;
}

function* permutations(n: number): Generator<number[]> {
  if (n === 0) {
    yield [];
    return;
  }
  for (const rest of permutations(n - 1)) for (let at = 0; at <= rest.length; at++) yield [...rest.slice(0, at), n - 1, ...rest.slice(at)];
}

/**
 * One machine, y_ij = 1 when job i precedes job j (i < j):
 *   before_ij: s_i + p_i ≤ s_j + M(1 − y_ij)    after_ij: s_j + p_j ≤ s_i + M·y_ij
 * min Σ w_i (s_i + p_i) + W·Cmax with s_i ≥ r_i, Cmax ≥ s_i + p_i and due rows s_i ≤ d_i − p_i.
 * A cyclic y is infeasible (its binding rows summed round the cycle give 0 ≤ −Σp). An acyclic y is an
 * order; for it the earliest-start schedule is the least point of the order's LP (by induction along the
 * order), so with w, W ≥ 0 it is optimal, and the order is feasible iff that schedule meets the due dates.
 * Its starts differ by less than max r + Σp ≤ 46 < M, so the rows of the other side are void there.
 */
export function disjunctive(r: DisjunctiveRecipe): Base {
  const n = r.jobs.length;
  const pairs: [number, number][] = [];
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) pairs.push([i, j]);
  const useMakespan = r.makespanWeight > 0;
  const rows: Row[] = pairs.flatMap(([i, j]): Row[] => [
    {
      name: `before${i}_${j}`,
      terms: terms([
        [`s${i}`, 1],
        [`s${j}`, -1],
        [`y${i}_${j}`, r.M],
      ]),
      ub: r.M - r.jobs[i]!.duration,
    },
    {
      name: `after${i}_${j}`,
      terms: terms([
        [`s${j}`, 1],
        [`s${i}`, -1],
        [`y${i}_${j}`, -r.M],
      ]),
      ub: -r.jobs[j]!.duration,
    },
  ]);
  r.jobs.forEach((job, i) => {
    if (job.due !== null) rows.push({ name: `due${i}`, terms: terms([[`s${i}`, 1]]), ub: job.due - job.duration });
    if (useMakespan)
      rows.push({
        name: `makespan${i}`,
        terms: terms([
          ["cmax", 1],
          [`s${i}`, -1],
        ]),
        lb: job.duration,
      });
  });
  const problem: ProblemInput = {
    name: "disjunctive",
    variables: [
      ...r.jobs.map((job, i): Column => ({ name: `s${i}`, lb: job.release })),
      ...pairs.map(([i, j]): Column => ({ name: `y${i}_${j}`, type: "binary" })),
      ...(useMakespan ? [{ name: "cmax" }] : []),
    ],
    objective: {
      constant: sum(r.jobs.map((job) => job.weight * job.duration)),
      terms: terms([
        ...r.jobs.map((job, i): [string, number] => [`s${i}`, job.weight]),
        ...(useMakespan ? [["cmax", r.makespanWeight] as [string, number]] : []),
      ]),
    },
    constraints: rows,
  };
  const candidates = [...permutations(n)].map((order) => {
    const start = new Array<number>(n).fill(0);
    let free = 0;
    for (const i of order) {
      start[i] = Math.max(r.jobs[i]!.release, free);
      free = start[i]! + r.jobs[i]!.duration;
    }
    if (r.jobs.some((job, i) => job.due !== null && start[i]! + job.duration > job.due)) return null;
    const position = order.map((_, k) => order.indexOf(k));
    const point: Record<string, number> = Object.fromEntries(start.map((s, i) => [`s${i}`, s]));
    for (const [i, j] of pairs) point[`y${i}_${j}`] = position[i]! < position[j]! ? 1 : 0;
    if (useMakespan) point.cmax = free;
    const value = sum(r.jobs.map((job, i) => job.weight * (start[i]! + job.duration))) + r.makespanWeight * (useMakespan ? free : 0);
    return { value, point };
  });
  return best(candidates, problem);
}

const disjunctiveRecipe = fc.record({
  jobs: fc.array(fc.record({ duration: int(1, 9), release: int(0, 10), weight: int(0, 5), due: fc.option(int(1, 40), { nil: null, freq: 3 }) }), {
    minLength: 2,
    maxLength: 4,
  }),
  makespanWeight: int(0, 3),
  M: bigM,
});

// ---------------------------------------------------------------- semi-continuous

export interface SemiContinuousRecipe {
  units: { fixed: number; unit: number; minimum: number; maximum: number | null }[];
  demand: number;
  exact: boolean;
  M: number;
}

/**
 * x_j = 0 or L_j ≤ x_j ≤ U_j (U_j = M when uncapped): rows x_j − U_j·y_j ≤ 0 and x_j − L_j·y_j ≥ 0.
 * min Σ f_j y_j + c_j x_j with Σx = D (or ≥ D). Per y: the box [L·y, U·y] and one sum row, filled cheapest
 * first from the lower bounds (U = M is used as it is: the fill never goes past D ≤ 20).
 */
export function semiContinuous(r: SemiContinuousRecipe): Base {
  const n = r.units.length;
  const upper = r.units.map((u) => u.maximum ?? r.M);
  const problem: ProblemInput = {
    name: "semi-continuous",
    variables: [...r.units.map((_, j): Column => ({ name: `y${j}`, type: "binary" })), ...r.units.map((_, j): Column => ({ name: `x${j}` }))],
    objective: {
      terms: terms(
        r.units.flatMap((u, j): [string, number][] => [
          [`y${j}`, u.fixed],
          [`x${j}`, u.unit],
        ]),
      ),
    },
    constraints: [
      ...r.units.flatMap((u, j): Row[] => [
        {
          name: `upper${j}`,
          terms: terms([
            [`x${j}`, 1],
            [`y${j}`, -upper[j]!],
          ]),
          ub: 0,
        },
        {
          name: `lower${j}`,
          terms: terms([
            [`x${j}`, 1],
            [`y${j}`, -u.minimum],
          ]),
          lb: 0,
        },
      ]),
      { name: "demand", terms: terms(r.units.map((_, j) => [`x${j}`, 1])), lb: r.demand, ub: r.exact ? r.demand : null },
    ],
  };
  const candidates = [...assignments(n)].map((y) => {
    const x = fillCheapest(
      r.units.map((u) => u.unit),
      r.units.map((u, j) => u.minimum * y[j]!),
      upper.map((u, j) => u * y[j]!),
      r.demand,
      r.exact,
    );
    if (!x) return null;
    const value = sum(r.units.map((u, j) => u.fixed * y[j]! + u.unit * x[j]!));
    return {
      value,
      point: Object.fromEntries(
        r.units.flatMap((_, j) => [
          [`y${j}`, y[j]!],
          [`x${j}`, x[j]!],
        ]),
      ),
    };
  });
  return best(candidates, problem);
}

const semiContinuousRecipe = fc.record({
  units: fc.array(fc.record({ fixed: int(0, 10), unit: int(0, 5), minimum: int(1, 8), maximum: fc.option(int(1, 15), { nil: null }) }), {
    minLength: 1,
    maxLength: 5,
  }),
  demand: int(1, 20),
  exact: fc.boolean(),
  M: bigM,
});

// ---------------------------------------------------------------- near-integral

export interface NearIntegralRecipe {
  blocks: {
    exponent: number;
    residue: number;
    below: number;
    above: number;
    cost: number;
    slackCost: number;
    room: number;
    mirror: boolean;
    halfCap: boolean;
  }[];
}

/**
 * Independent blocks: integer x ∈ [−below, above], continuous z ∈ [0, Z], A = 10^e (e = 7…9), 1 ≤ r ≤ A·1e-7.
 *  - plain: A·x + z ≥ r, min c·x + e·z (c, e ≥ 1). x ≤ −1 needs z ≥ A + r > Z, x ≥ 2 costs more than x = 1;
 *    so x = 0 with z = r (if r ≤ Z), or x = 1 with z = 0 (if above ≥ 1 and no `halfCap`, the row 2x ≤ 1
 *    that leaves x ≤ 0 to integers and x ≤ ½ to the relaxation). The LP relaxation: x = r/A ≤ 1e-7.
 *  - mirror: A·x − z ≤ −r, min −c·x + e·z: x = 0 with z = r, or x = −1 with z = 0 (if below ≥ 1); x ≥ 1
 *    needs z ≥ A + r, x ≤ −2 costs more. The LP relaxation: x = −r/A.
 * Each row's side is r (≤ 100), so a point rounded from the relaxation breaks it by r, far beyond any
 * tolerance; a side of A·k + r would hide that within a tolerance relative to the side (the indicator family
 * has those). Infeasible blocks (no option) are short by r − Z ≥ 1.
 */
export function nearIntegral(r: NearIntegralRecipe): Base {
  const variables: Column[] = [];
  const constraints: Row[] = [];
  const objective: Term[] = [];
  let value = 0;
  const point: Record<string, number> = {};
  let feasible = true;
  r.blocks.forEach((b, i) => {
    const A = 10 ** b.exponent;
    const residue = 1 + ((b.residue - 1) % 10 ** (b.exponent - 7));
    const sign = b.mirror ? -1 : 1;
    variables.push({ name: `x${i}`, type: "integer", lb: -b.below, ub: b.above }, { name: `z${i}`, ub: b.room });
    objective.push(
      ...terms([
        [`x${i}`, sign * b.cost],
        [`z${i}`, b.slackCost],
      ]),
    );
    const near = terms([
      [`x${i}`, A],
      [`z${i}`, sign],
    ]);
    constraints.push(b.mirror ? { name: `near${i}`, terms: near, ub: -residue } : { name: `near${i}`, terms: near, lb: residue });
    if (b.halfCap && !b.mirror) constraints.push({ name: `cap${i}`, terms: terms([[`x${i}`, 2]]), ub: 1 });
    const options: { x: number; z: number }[] = [];
    if (residue <= b.room) options.push({ x: 0, z: residue });
    if (b.mirror ? b.below >= 1 : b.above >= 1 && !b.halfCap) options.push({ x: sign, z: 0 });
    const cost = (o: { x: number; z: number }) => sign * b.cost * o.x + b.slackCost * o.z;
    const chosen = options.sort((p, q) => cost(p) - cost(q))[0];
    if (!chosen) feasible = false;
    else {
      value += cost(chosen);
      point[`x${i}`] = chosen.x;
      point[`z${i}`] = chosen.z;
    }
  });
  const problem: ProblemInput = { name: "near-integral", variables, objective: { terms: objective }, constraints };
  if (!feasible) return { ...INFEASIBLE, problem };
  return { expected: "optimal", optimum: value, witness: point, problem };
}

const nearIntegralRecipe = fc.record({
  blocks: fc.array(
    fc.record({
      exponent: int(7, 9),
      residue: int(1, 100),
      below: int(0, 2),
      above: int(0, 2),
      cost: int(1, 9),
      slackCost: int(1, 9),
      room: int(0, 100),
      mirror: fc.boolean(),
      halfCap: fc.boolean(),
    }),
    { minLength: 1, maxLength: 4 },
  ),
});

// ---------------------------------------------------------------- wide coefficient ranges

export interface Widening {
  /** Row i is multiplied by 10^rows[i % length] (0…3). */
  rows: number[];
  /** Continuous column j is substituted x = 10^-k·x′ with k = columns[j % length] (0…2). */
  columns: number[];
  /** The objective (constant included) is multiplied by 10^objective (−2…3). */
  objective: number;
}

/**
 * The same model with wider coefficient ranges. Rows are scaled by 10^k ≥ 1 and columns substituted with
 * 10^-k ≤ 1, so a tolerance met by the widened model is met by the original one (the widening never
 * loosens what a solver must satisfy); the feasible set maps one to one, the optimum scales with the objective.
 */
export function widen(base: Base, w: Widening): Base {
  const p = base.problem;
  const continuous = (p.variables ?? []).filter((v) => (v.type ?? "continuous") === "continuous").map((v) => v.name);
  const columnScale = new Map(continuous.map((name, j) => [name, 10 ** -w.columns[j % w.columns.length]!]));
  const scaleOf = (name: string) => columnScale.get(name) ?? 1;
  const times = (v: number | null | undefined, s: number) => (v === null || v === undefined ? v : v * s);
  const objectiveScale = 10 ** w.objective;
  const problem: ProblemInput = {
    ...p,
    variables: p.variables.map((v) => ({ ...v, lb: times(v.lb, 1 / scaleOf(v.name)), ub: times(v.ub, 1 / scaleOf(v.name)) })),
    objective: {
      constant: (p.objective?.constant ?? 0) * objectiveScale,
      terms: (p.objective?.terms ?? []).map((t) => ({ var: t.var, coef: t.coef * scaleOf(t.var) * objectiveScale })),
    },
    constraints: (p.constraints ?? []).map((row, i) => {
      const s = 10 ** w.rows[i % w.rows.length]!;
      return { ...row, terms: row.terms.map((t) => ({ var: t.var, coef: t.coef * scaleOf(t.var) * s })), lb: times(row.lb, s), ub: times(row.ub, s) };
    }),
  };
  const witness = base.witness && Object.fromEntries(Object.entries(base.witness).map(([name, v]) => [name, v / scaleOf(name)]));
  return { ...base, problem, witness, optimum: base.optimum === null ? null : base.optimum * objectiveScale };
}

const widening: fc.Arbitrary<Widening | null> = fc.option(
  fc.record({
    rows: fc.array(int(0, 3), { minLength: 1, maxLength: 6 }),
    columns: fc.array(int(0, 2), { minLength: 1, maxLength: 6 }),
    objective: int(-2, 3),
  }),
  { nil: null, freq: 2 },
);

// ---------------------------------------------------------------- all families

const withFamily = <R>(family: NumericsFamily, recipe: fc.Arbitrary<R>, build: (r: R) => Base, M: (r: R) => number) =>
  fc.tuple(recipe, widening).map(([r, w]): NumericsCase => {
    const base = build(r);
    return { family, bigM: M(r), widening: w, ...(w ? widen(base, w) : base) };
  });

export const fixedChargeCase = withFamily("fixed-charge", fixedChargeRecipe, fixedCharge, (r) => r.M);
export const indicatorCase = withFamily("indicator", indicatorRecipe, indicator, (r) => r.M);
export const disjunctiveCase = withFamily("disjunctive", disjunctiveRecipe, disjunctive, (r) => r.M);
export const semiContinuousCase = withFamily("semi-continuous", semiContinuousRecipe, semiContinuous, (r) => r.M);
export const nearIntegralCase = withFamily("near-integral", nearIntegralRecipe, nearIntegral, (r) => Math.max(...r.blocks.map((b) => 10 ** b.exponent)));

/** Every family, about equally often. */
export const numericsCase: fc.Arbitrary<NumericsCase> = fc.oneof(fixedChargeCase, indicatorCase, disjunctiveCase, semiContinuousCase, nearIntegralCase);

/**
 * The models of issue 24 as filed, run first in every pass: eight fixed charges of 10 + 1·x with M = 1e7
 * and demand 3 (optimum 13: one facility at 10 + 3), and min 100x + y, y − 1e7·x ≤ 0, y ≥ 5, x binary
 * (optimum 105: x = 0 forces y ≤ 0 < 5, and x = 1 leaves min 100 + y over y ≥ 5); and the smallest
 * fixed charge CBC calls infeasible at M ≥ 1e8 (the suite's shrunk counterexample): min y, x ≤ 1e8·y, x ≥ 1
 * (optimum 1 at y = 1).
 */
export const ISSUE_CASES: NumericsCase[] = [
  {
    family: "fixed-charge",
    bigM: 1e7,
    widening: null,
    ...fixedCharge({ facilities: Array.from({ length: 8 }, () => ({ fixed: 10, unit: 1, cap: null })), demand: 3, M: 1e7 }),
  },
  {
    family: "fixed-charge",
    bigM: 1e7,
    widening: null,
    expected: "optimal",
    optimum: 105,
    witness: { x: 1, y: 5 },
    problem: {
      name: "issue 24, second model",
      variables: [
        { name: "x", type: "binary" },
        { name: "y", lb: 5 },
      ],
      objective: {
        terms: [
          { var: "x", coef: 100 },
          { var: "y", coef: 1 },
        ],
      },
      constraints: [
        {
          name: "link",
          terms: [
            { var: "y", coef: 1 },
            { var: "x", coef: -1e7 },
          ],
          ub: 0,
        },
      ],
    },
  },
  { family: "fixed-charge", bigM: 1e8, widening: null, ...fixedCharge({ facilities: [{ fixed: 1, unit: 0, cap: null }], demand: 1, M: 1e8 }) },
];
