import fc from "fast-check";
import type { Problem, ProblemInput } from "../../functions/core/problem/schema.js";
import { checkSolution, objectiveOf } from "../../functions/core/solvers/checker.js";

/**
 * Small LPs and MILPs whose verdict is known by construction, for the verdict suite. Each family is a
 * fast-check arbitrary over a recipe of small integers, mapped to a problem, so a failing case shrinks to
 * a smaller recipe. All data are integers or halves/quarters: the reference objective is exact.
 *
 *  - kkt-optimal: a point x*, row multipliers y and reduced costs d chosen to satisfy the optimality
 *    conditions (y and d signed by which bound is active, zero where none is), then c = Aᵀy + d. x* is
 *    optimal with objective cᵀx* + constant. Columns marked integer sit at integral x*, so the MILP has
 *    the same optimum as its relaxation; they are boxed, as a search over unbounded integers need not end.
 *  - enumerated: pure-integer problems over small boxes, the optimum (or infeasibility) found by
 *    enumerating every integer point.
 *  - farkas-infeasible: rows r₁..r_k and a row Σ yᵢ·(±rᵢ) ≥ Σ yᵢ·(±bᵢ) + gap, which no point satisfies.
 *  - ray-unbounded: a point x₀ and an integral direction d that every row and bound allows, with an
 *    objective that improves along d (integral x₀ and d: the MILP is unbounded too).
 *  - integer-infeasible: a row Σ g·kⱼ·xⱼ = g·m + r over integers (0 < r < g), with a fractional point
 *    that satisfies every row: the relaxation is feasible, the MILP is not.
 *
 * Every family mixes free, one-sided, boxed and fixed columns, ≤, ≥, = and ranged rows, both senses and
 * an objective constant.
 */

export type KnownVerdict = "optimal" | "infeasible" | "unbounded";

export interface VerdictCase {
  family: "kkt-optimal" | "enumerated" | "farkas-infeasible" | "ray-unbounded" | "integer-infeasible";
  expected: KnownVerdict;
  /** The optimum (constant included, in the problem's sense) when `expected` is optimal. */
  reference: number | null;
  problem: ProblemInput;
}

type Sense = "minimize" | "maximize";
type RowKind = "le" | "ge" | "eq" | "range";
type Column = NonNullable<ProblemInput["variables"]>[number];
type Row = NonNullable<ProblemInput["constraints"]>[number];

const MAX_COLUMNS = 6;
const small = (min: number, max: number) => fc.integer({ min, max });
const coefficients = fc.array(small(-4, 4), { minLength: MAX_COLUMNS, maxLength: MAX_COLUMNS });
const sense = fc.constantFrom<Sense>("minimize", "maximize");
const rowKind = fc.constantFrom<RowKind>("le", "ge", "eq", "range");

const dot = (coefs: readonly number[], x: readonly number[]) => x.reduce((s, v, j) => s + (coefs[j] ?? 0) * v, 0);
const terms = (coefs: readonly number[], n: number) => coefs.slice(0, n).flatMap((coef, j) => (coef === 0 ? [] : [{ var: `x${j}`, coef }]));

/** min cᵀx + k, or max −cᵀx − k: the same optimum up to sign, so references are computed once. */
function objective(senseOf: Sense, costs: readonly number[], constant: number): ProblemInput["objective"] {
  const sign = senseOf === "minimize" ? 1 : -1;
  return {
    constant: sign * constant,
    terms: terms(
      costs.map((c) => sign * c),
      costs.length,
    ),
  };
}

/** A row through activity `at` that is slack (not tight) by `slack` on each side its kind has. */
function slackRow(
  name: string,
  { terms: rowTerms, kind, at, slack, width }: { terms: Row["terms"]; kind: RowKind; at: number; slack: number; width: number },
): Row {
  switch (kind) {
    case "le":
      return { name, terms: rowTerms, lb: null, ub: at + slack };
    case "ge":
      return { name, terms: rowTerms, lb: at - slack, ub: null };
    case "eq":
      return { name, terms: rowTerms, lb: at, ub: at };
    case "range":
      return { name, terms: rowTerms, lb: at - slack, ub: at + width };
  }
}

// ---------------------------------------------------------------- kkt-optimal

const kktColumn = fc.record({
  bounds: fc.constantFrom("lower", "upper", "boxed", "free", "fixed"),
  value: small(-4, 4),
  half: fc.boolean(),
  at: fc.constantFrom("lower", "upper", "inside"),
  reduced: small(1, 4),
  width: small(1, 5),
  integer: fc.boolean(),
});
const kktRow = fc.record({ coefs: coefficients, kind: rowKind, active: fc.boolean(), dual: small(1, 4), side: fc.boolean(), slack: small(1, 4) });

export const kktOptimal = fc
  .record({
    columns: fc.array(kktColumn, { minLength: 1, maxLength: MAX_COLUMNS }),
    rows: fc.array(kktRow, { maxLength: 6 }),
    sense,
    constant: small(-9, 9),
    mixed: fc.boolean(),
  })
  .map((recipe): VerdictCase => {
    const n = recipe.columns.length;
    const x: number[] = [];
    const reducedCosts: number[] = [];
    const variables: Column[] = recipe.columns.map((col, j) => {
      const integer = recipe.mixed && col.integer;
      const v = col.value + (col.half && !integer ? 0.5 : 0);
      x.push(v);
      let lb: number | null = null;
      let ub: number | null = null;
      let d = 0;
      // Branch and bound over an integer column without bounds need not end even where the optimum is
      // known, so integer columns here are boxed (the other families keep free ones).
      const bounds = integer && col.bounds !== "fixed" ? "boxed" : col.bounds;
      if (bounds === "fixed") {
        [lb, ub, d] = [v, v, col.at === "upper" ? -col.reduced : col.reduced];
      } else if (bounds === "lower") {
        [lb, d] = col.at === "lower" ? [v, col.reduced] : [v - col.width, 0];
      } else if (bounds === "upper") {
        [ub, d] = col.at === "upper" ? [v, -col.reduced] : [v + col.width, 0];
      } else if (bounds === "boxed") {
        if (col.at === "lower") [lb, ub, d] = [v, v + col.width, col.reduced];
        else if (col.at === "upper") [lb, ub, d] = [v - col.width, v, -col.reduced];
        else [lb, ub] = [v - col.width, v + col.width];
      }
      reducedCosts.push(d);
      return { name: `x${j}`, lb, ub, type: integer ? "integer" : "continuous" };
    });
    const costs = [...reducedCosts];
    const constraints: Row[] = recipe.rows.map((row, i) => {
      const a = dot(row.coefs, x);
      const rowTerms = terms(row.coefs, n);
      let y = 0;
      let built: Row;
      if (row.kind === "eq") {
        built = { name: `r${i}`, terms: rowTerms, lb: a, ub: a };
        y = row.side ? row.dual : -row.dual;
      } else if (!row.active) {
        built = slackRow(`r${i}`, { terms: rowTerms, kind: row.kind, at: a, slack: row.slack, width: row.slack });
      } else if (row.kind === "le" || (row.kind === "range" && !row.side)) {
        built = { name: `r${i}`, terms: rowTerms, lb: row.kind === "range" ? a - row.slack : null, ub: a };
        y = -row.dual;
      } else {
        built = { name: `r${i}`, terms: rowTerms, lb: a, ub: row.kind === "range" ? a + row.slack : null };
        y = row.dual;
      }
      for (let j = 0; j < n; j++) costs[j]! += y * (row.coefs[j] ?? 0);
      return built;
    });
    const problem: ProblemInput = { name: "kkt", sense: recipe.sense, variables, objective: objective(recipe.sense, costs, recipe.constant), constraints };
    const optimum = dot(costs, x) + recipe.constant;
    return { family: "kkt-optimal", expected: "optimal", reference: recipe.sense === "minimize" ? optimum : -optimum, problem };
  });

// ---------------------------------------------------------------- enumerated

const enumeratedColumn = fc.record({ lb: small(-3, 2), width: small(0, 3), binary: fc.boolean(), cost: small(-5, 5) });
const enumeratedRow = fc.record({ coefs: coefficients, kind: rowKind, rhs: small(-8, 8), width: small(0, 4) });

export const enumerated = fc
  .record({
    columns: fc.array(enumeratedColumn, { minLength: 1, maxLength: 4 }),
    rows: fc.array(enumeratedRow, { minLength: 1, maxLength: 4 }),
    sense,
    constant: small(-9, 9),
  })
  .map((recipe): VerdictCase => {
    const n = recipe.columns.length;
    const boxes = recipe.columns.map((c) => (c.binary ? { lb: 0, ub: 1 } : { lb: c.lb, ub: c.lb + c.width }));
    const variables: Column[] = recipe.columns.map((c, j) =>
      c.binary ? { name: `x${j}`, type: "binary" } : { name: `x${j}`, type: "integer", lb: boxes[j]!.lb, ub: boxes[j]!.ub },
    );
    const rows = recipe.rows.map((r) => {
      const [lb, ub] = r.kind === "le" ? [null, r.rhs] : r.kind === "ge" ? [r.rhs, null] : r.kind === "eq" ? [r.rhs, r.rhs] : [r.rhs - r.width, r.rhs];
      return { coefs: r.coefs, lb, ub };
    });
    const costs = recipe.columns.map((c) => c.cost);
    let best: number | null = null;
    const point = boxes.map((b) => b.lb);
    const visit = (j: number): void => {
      if (j === n) {
        const feasible = rows.every((r) => {
          const a = dot(r.coefs, point);
          return (r.lb === null || a >= r.lb) && (r.ub === null || a <= r.ub);
        });
        const value = dot(costs, point);
        if (feasible && (best === null || value < best)) best = value;
        return;
      }
      for (let v = boxes[j]!.lb; v <= boxes[j]!.ub; v++) {
        point[j] = v;
        visit(j + 1);
      }
    };
    visit(0);
    const constraints: Row[] = rows.map((r, i) => ({ name: `r${i}`, terms: terms(r.coefs, n), lb: r.lb, ub: r.ub }));
    const problem: ProblemInput = {
      name: "enumerated",
      sense: recipe.sense,
      variables,
      objective: objective(recipe.sense, costs, recipe.constant),
      constraints,
    };
    const found = best as number | null;
    if (found === null) return { family: "enumerated", expected: "infeasible", reference: null, problem };
    const optimum = found + recipe.constant;
    return { family: "enumerated", expected: "optimal", reference: recipe.sense === "minimize" ? optimum : -optimum, problem };
  });

// ---------------------------------------------------------------- farkas-infeasible

const anyColumn = fc.record({
  bounds: fc.constantFrom("lower", "upper", "boxed", "free"),
  lb: small(-3, 3),
  width: small(1, 5),
  integer: fc.boolean(),
  cost: small(-5, 5),
});
const boundsOf = (c: { bounds: string; lb: number; width: number }): { lb: number | null; ub: number | null } =>
  c.bounds === "lower"
    ? { lb: c.lb, ub: null }
    : c.bounds === "upper"
      ? { lb: null, ub: c.lb + c.width }
      : c.bounds === "boxed"
        ? { lb: c.lb, ub: c.lb + c.width }
        : { lb: null, ub: null };
const combinedRow = fc.record({ coefs: coefficients, kind: rowKind, rhs: small(-6, 10), width: small(0, 4), side: fc.boolean(), multiplier: small(1, 3) });

export const farkasInfeasible = fc
  .record({
    columns: fc.array(anyColumn, { minLength: 1, maxLength: 5 }),
    combined: fc.array(combinedRow, { minLength: 1, maxLength: 3 }),
    others: fc.array(fc.record({ coefs: coefficients, kind: rowKind, rhs: small(-6, 10), width: small(0, 4) }), { maxLength: 2 }),
    conflict: fc.constantFrom("ge", "eq", "range"),
    gap: small(1, 3),
    sense,
    constant: small(-9, 9),
    mixed: fc.boolean(),
  })
  .map((recipe): VerdictCase => {
    const n = recipe.columns.length;
    const variables: Column[] = recipe.columns.map((c, j) => ({ name: `x${j}`, ...boundsOf(c), type: recipe.mixed && c.integer ? "integer" : "continuous" }));
    const combination = new Array<number>(MAX_COLUMNS).fill(0);
    let rhs = 0;
    const constraints: Row[] = recipe.combined.map((r, i) => {
      // Each row gives one valid inequality s·(a·x) ≤ s·b, which the combination adds up with weight y.
      const [lb, ub] = r.kind === "le" ? [null, r.rhs] : r.kind === "ge" ? [r.rhs, null] : r.kind === "eq" ? [r.rhs, r.rhs] : [r.rhs - r.width, r.rhs];
      const upperSide = r.kind === "le" || (r.kind !== "ge" && r.side);
      const sign = upperSide ? 1 : -1;
      const bound = (upperSide ? ub : lb)!;
      for (let j = 0; j < MAX_COLUMNS; j++) combination[j]! += r.multiplier * sign * r.coefs[j]!;
      rhs += r.multiplier * sign * bound;
      return { name: `r${i}`, terms: terms(r.coefs, n), lb, ub };
    });
    recipe.others.forEach((r, i) => {
      const [lb, ub] = r.kind === "le" ? [null, r.rhs] : r.kind === "ge" ? [r.rhs, null] : r.kind === "eq" ? [r.rhs, r.rhs] : [r.rhs - r.width, r.rhs];
      constraints.push({ name: `o${i}`, terms: terms(r.coefs, n), lb, ub });
    });
    // Σ y·s·a·x ≤ rhs holds for every point of the rows above; this row asks for more.
    const low = rhs + recipe.gap;
    const conflict: Row = {
      name: "conflict",
      terms: terms(combination, n),
      lb: low,
      ub: recipe.conflict === "ge" ? null : recipe.conflict === "eq" ? low : low + recipe.gap,
    };
    constraints.splice(recipe.gap % (constraints.length + 1), 0, conflict);
    const costs = recipe.columns.map((c) => c.cost);
    const problem: ProblemInput = { name: "farkas", sense: recipe.sense, variables, objective: objective(recipe.sense, costs, recipe.constant), constraints };
    return { family: "farkas-infeasible", expected: "infeasible", reference: null, problem };
  });

// ---------------------------------------------------------------- ray-unbounded

const rayColumn = fc.record({
  direction: small(-2, 2),
  start: small(-3, 3),
  bounded: fc.boolean(),
  slack: small(0, 3),
  integer: fc.boolean(),
  cost: small(-4, 4),
});

export const rayUnbounded = fc
  .record({
    columns: fc.array(rayColumn, { minLength: 1, maxLength: 5 }),
    rows: fc.array(fc.record({ coefs: coefficients, kind: rowKind, slack: small(0, 3), width: small(0, 3) }), { maxLength: 5 }),
    push: small(1, 3),
    sense,
    constant: small(-9, 9),
    mixed: fc.boolean(),
  })
  .map((recipe): VerdictCase => {
    const n = recipe.columns.length;
    const d = recipe.columns.map((c) => c.direction);
    const x0 = recipe.columns.map((c) => c.start);
    // One entry of d is ±1, so the objective can be made to improve along d with integer costs.
    const p = Math.max(
      0,
      d.findIndex((v) => v !== 0),
    );
    d[p] = d[p]! < 0 ? -1 : 1;
    const variables: Column[] = recipe.columns.map((c, j) => {
      const type = recipe.mixed && c.integer ? "integer" : "continuous";
      if (d[j]! > 0) return { name: `x${j}`, lb: c.bounded ? x0[j]! - c.slack : null, ub: null, type };
      if (d[j]! < 0) return { name: `x${j}`, lb: null, ub: c.bounded ? x0[j]! + c.slack : null, type };
      return { name: `x${j}`, lb: c.bounded ? x0[j]! - c.slack : null, ub: c.bounded ? x0[j]! + c.slack + 1 : null, type };
    });
    const constraints: Row[] = recipe.rows.map((r, i) => {
      const along = dot(r.coefs, d);
      const kind: RowKind = along > 0 ? "ge" : along < 0 ? "le" : r.kind;
      return slackRow(`r${i}`, { terms: terms(r.coefs, n), kind, at: dot(r.coefs, x0), slack: r.slack, width: r.width });
    });
    const costs = recipe.columns.map((c) => c.cost);
    costs[p]! -= d[p]! * (dot(costs, d) + recipe.push); // now cᵀd = −push
    const problem: ProblemInput = { name: "ray", sense: recipe.sense, variables, objective: objective(recipe.sense, costs, recipe.constant), constraints };
    return { family: "ray-unbounded", expected: "unbounded", reference: null, problem };
  });

// ---------------------------------------------------------------- integer-infeasible

export const integerInfeasible = fc
  .record({
    modulus: fc.constantFrom(2, 4),
    residue: small(1, 3),
    integers: fc.array(fc.record({ k: small(-3, 3), z: small(-3, 3), width: small(0, 2), cost: small(-5, 5) }), { minLength: 2, maxLength: 4 }),
    continuous: fc.array(fc.record({ value: small(-3, 3), width: small(0, 3), free: fc.boolean(), cost: small(-5, 5) }), { maxLength: 2 }),
    rows: fc.array(fc.record({ coefs: coefficients, kind: rowKind, slack: small(0, 3), width: small(0, 3) }), { maxLength: 3 }),
    sense,
    constant: small(-9, 9),
  })
  .map((recipe): VerdictCase => {
    const g = recipe.modulus;
    const r = 1 + ((recipe.residue - 1) % (g - 1));
    const k = recipe.integers.map((c) => c.k);
    k[0] = k[0]! < 0 ? -1 : 1;
    const z = recipe.integers.map((c) => c.z);
    // The relaxation's point: z with x₀ moved by r/(g·k₀) = ±r/g, inside x₀'s box [z₀ − 1, z₀ + 1].
    const point = [...z, ...recipe.continuous.map((c) => c.value)];
    point[0] = z[0]! + r / (g * k[0]!);
    const variables: Column[] = [
      ...recipe.integers.map((c, j): Column => ({ name: `x${j}`, type: "integer", lb: z[j]! - (j === 0 ? 1 : c.width), ub: z[j]! + (j === 0 ? 1 : c.width) })),
      ...recipe.continuous.map((c, i): Column => {
        const j = recipe.integers.length + i;
        return c.free ? { name: `x${j}`, lb: null, ub: null } : { name: `x${j}`, lb: c.value - c.width, ub: c.value + c.width };
      }),
    ];
    const n = variables.length;
    const parityCoefs = k.map((kj) => g * kj);
    const parity: Row = { name: "parity", terms: terms(parityCoefs, k.length), lb: dot(parityCoefs, z) + r, ub: dot(parityCoefs, z) + r };
    const constraints: Row[] = [
      parity,
      ...recipe.rows.map((row, i) =>
        slackRow(`r${i}`, { terms: terms(row.coefs, n), kind: row.kind, at: dot(row.coefs, point), slack: row.slack, width: row.width }),
      ),
    ];
    const costs = [...recipe.integers.map((c) => c.cost), ...recipe.continuous.map((c) => c.cost)];
    const problem: ProblemInput = { name: "parity", sense: recipe.sense, variables, objective: objective(recipe.sense, costs, recipe.constant), constraints };
    return { family: "integer-infeasible", expected: "infeasible", reference: null, problem };
  });

/** Every family, weighted so optima (where objectives are compared) are about half of the cases. */
export const verdictCase: fc.Arbitrary<VerdictCase> = fc.oneof(
  { arbitrary: kktOptimal, weight: 4 },
  { arbitrary: enumerated, weight: 2 },
  { arbitrary: farkasInfeasible, weight: 2 },
  { arbitrary: rayUnbounded, weight: 2 },
  { arbitrary: integerInfeasible, weight: 1 },
);

/** What a result is judged on (a solver row, or an engine's answer). */
export interface JudgedResult {
  solver_status: string;
  objective_value: number | null;
  solution: Record<string, number> | null;
  error_message: string | null;
}

export type Judgement = "right" | "wrong" | "error";

/**
 * Right: the expected verdict, and for an optimum the reference objective with a solution the
 * independent checker accepts and whose objective is the one reported. Rows and objectives agree to
 * 1e-6 (relative), plus the roundoff of their terms at the solution's own magnitude: a solver may return
 * an optimum far along a direction of zero cost (CBC's heuristics go to 1e10), where the terms cancel. An `error` is counted apart from a
 * wrong verdict, but the suite allows neither.
 */
export function judge(c: Pick<VerdictCase, "expected" | "reference">, problem: Problem, r: JudgedResult): { judgement: Judgement; why: string | null } {
  if (r.solver_status === "error") return { judgement: "error", why: `error: ${r.error_message}` };
  if (r.solver_status !== c.expected) return { judgement: "wrong", why: `expected ${c.expected}, got ${r.solver_status} (${r.error_message ?? "no message"})` };
  if (c.expected !== "optimal") {
    return r.objective_value === null
      ? { judgement: "right", why: null }
      : { judgement: "wrong", why: `an objective (${r.objective_value}) with a ${c.expected} verdict` };
  }
  if (r.objective_value === null || !r.solution) return { judgement: "wrong", why: "an optimum without an objective or a solution" };
  // A row may be off by the roundoff of its own terms, when the point lies far along a zero-cost direction.
  const rowMagnitude = new Map(problem.constraints.map((c) => [c.name, c.terms.reduce((s, t) => s + Math.abs(t.coef * r.solution![t.var]!), 0)]));
  const violations = checkSolution(problem, r.solution, { tolerance: 1e-6 }).filter(
    (v) => v.kind !== "constraint" || v.amount > 1e-6 + 1e-14 * (rowMagnitude.get(v.name) ?? 0),
  );
  if (violations.length > 0) return { judgement: "wrong", why: violations.map((v) => v.message).join("; ") };
  const reference = c.reference!;
  const magnitude = Math.abs(problem.objective.constant) + problem.objective.terms.reduce((s, t) => s + Math.abs(t.coef * r.solution![t.var]!), 0);
  const allowed = 1e-6 * Math.max(1, Math.abs(reference)) + 1e-14 * magnitude;
  const recomputed = objectiveOf(problem, r.solution);
  if (!(Math.abs(r.objective_value - reference) <= allowed)) return { judgement: "wrong", why: `objective ${r.objective_value}, reference ${reference}` };
  if (!(Math.abs(recomputed - r.objective_value) <= allowed)) {
    return { judgement: "wrong", why: `objective ${r.objective_value} reported, ${recomputed} at the solution` };
  }
  return { judgement: "right", why: null };
}
