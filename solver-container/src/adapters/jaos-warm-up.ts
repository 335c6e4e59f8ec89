import { hasIntegers, ProblemSchema, type Problem } from "../../../functions/core/problem/schema.js";

/**
 * Small problems a standby jaos child solves before its real one, so that V8 has compiled (and
 * optimised) the engine's hot paths — presolve, both simplex methods, the LU, branch and bound, cuts,
 * the certificates — while the worker is idle. Generated from a fixed seed: the same every time, no
 * files, feasible (or, for the certificate paths, infeasible) by construction.
 */
export function jaosWarmUpProblems(): Problem[] {
  return [
    transportation(16, 24, 1),
    sparseLp(160, 240, 2),
    productionPlan({ periods: 16, products: 10, resources: 6, seed: 7 }),
    wideBoxedLp(24, 2400, 8),
    knapsack(20, 6, 6),
    facilityLocation(4, 16, 4),
    sparseLp(45, 60, 5),
    infeasibleLp(),
    knapsack(18, 6, 7),
  ];
}

/**
 * The warm-up in the order the standby child solves it: `rounds` rounds over the problems in their
 * order, the MILPs only in every `milpEvery`-th round from the first. The MILPs are most of a round's
 * CPU; a budget that cuts the rounds short (jaos.ts) then still leaves the MILPs about the rounds
 * they had, and the LPs more.
 */
export function* jaosWarmUpSequence(rounds: number, milpEvery: number): Generator<Problem> {
  const problems = jaosWarmUpProblems().map((problem) => ({ problem, integer: hasIntegers(problem) }));
  for (let round = 0; round < rounds; round++) {
    for (const { problem, integer } of problems) {
      if (!integer || round % milpEvery === 0) yield problem;
    }
  }
}

function lcg(seed: number): () => number {
  let state = seed * 2654435761;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Supplies to demands at random costs, plus two side constraints: a degenerate LP with equality rows. */
function transportation(supplies: number, demands: number, seed: number): Problem {
  const rand = lcg(seed);
  const cap = Array.from({ length: supplies }, () => 40 + Math.floor(rand() * 60));
  const total = cap.reduce((a, b) => a + b, 0);
  const need = Array.from({ length: demands }, () => Math.floor((total * 0.8) / demands));
  const x = (i: number, j: number) => `x_${i}_${j}`;
  const variables = [];
  const terms = [];
  for (let i = 0; i < supplies; i++)
    for (let j = 0; j < demands; j++) {
      variables.push({ name: x(i, j), ub: 30 + Math.floor(rand() * 40) });
      terms.push({ var: x(i, j), coef: 1 + Math.floor(rand() * 20) });
    }
  const constraints = [
    ...cap.map((c, i) => ({ name: `s${i}`, terms: need.map((_, j) => ({ var: x(i, j), coef: 1 })), ub: c })),
    ...need.map((d, j) => ({ name: `d${j}`, terms: cap.map((_, i) => ({ var: x(i, j), coef: 1 })), lb: d, ub: d })),
    { name: "side0", terms: cap.map((_, i) => ({ var: x(i, 0), coef: i % 2 ? 1 : -1 })), lb: -20 },
    { name: "side1", terms: need.map((_, j) => ({ var: x(0, j), coef: 1 + (j % 3) })), ub: 200 },
  ];
  return ProblemSchema.parse({ name: "warm-transportation", variables, objective: { terms }, constraints });
}

/** A random sparse LP with ≤, ≥, = and ranged rows, some free and some bounded columns, feasible at x0. */
function sparseLp(rows: number, cols: number, seed: number): Problem {
  const rand = lcg(seed);
  const x0 = Array.from({ length: cols }, () => rand() * 10);
  const variables = x0.map((_, j) => ({
    name: `v${j}`,
    lb: j % 11 === 0 ? null : 0,
    ub: j % 5 === 0 ? 20 : null,
  }));
  const constraints = Array.from({ length: rows }, (_, i) => {
    const terms: { var: string; coef: number }[] = [];
    for (let j = 0; j < cols; j++)
      if (rand() < 0.08 || j === (i * 7) % cols) terms.push({ var: `v${j}`, coef: Math.round((rand() * 2 - 0.6) * 100) / 10 || 1 });
    const activity = terms.reduce((s, t) => s + t.coef * x0[Number(t.var.slice(1))]!, 0);
    const kind = i % 4;
    if (kind === 0) return { name: `r${i}`, terms, ub: activity + 1 + rand() * 5 };
    if (kind === 1) return { name: `r${i}`, terms, lb: activity - 1 - rand() * 5 };
    if (kind === 2) return { name: `r${i}`, terms, lb: activity, ub: activity };
    return { name: `r${i}`, terms, lb: activity - 3, ub: activity + 3 };
  });
  // Bounded: minimizing, free columns cost nothing and the others cost ≥ 0; maximizing, every column is boxed.
  const sense = seed % 2 ? "minimize" : "maximize";
  const terms = variables.map((v) => ({ var: v.name, coef: v.lb === null ? 0 : Math.round(rand() * 50) / 10 }));
  const columns = sense === "minimize" ? variables : variables.map((v) => ({ name: v.name, lb: v.lb ?? -25, ub: v.ub ?? 25 }));
  return ProblemSchema.parse({ name: "warm-sparse-lp", sense, variables: columns, objective: { terms }, constraints });
}

/**
 * Multi-period production planning: a staircase of stock-balance equalities linking the periods,
 * resource rows per period, overtime at a premium, and the accounting columns netlib LPs carry (a free
 * cash column defined by an equality, doubleton equations, a fixed column, duplicate rows) so that
 * presolve's reductions fire and the dual simplex runs a few hundred iterations with refactorisations.
 * Feasible by construction: overtime is unbounded.
 */
function productionPlan({ periods, products, resources, seed }: { periods: number; products: number; resources: number; seed: number }): Problem {
  const rand = lcg(seed);
  const variables: { name: string; lb?: number | null; ub?: number | null }[] = [];
  const terms: { var: string; coef: number }[] = [];
  const constraints: { name: string; terms: { var: string; coef: number }[]; lb?: number; ub?: number }[] = [];
  const use = Array.from({ length: resources }, () => Array.from({ length: products }, () => (rand() < 0.6 ? 1 + Math.floor(rand() * 9) : 0)));
  const unitCost = Array.from({ length: products }, () => 2 + Math.floor(rand() * 30) / 4);
  for (let t = 0; t < periods; t++) {
    const cash = `cash${t}`;
    variables.push({ name: cash, lb: null, ub: null });
    const spend: { var: string; coef: number }[] = [{ var: cash, coef: -1 }];
    for (let p = 0; p < products; p++) {
      const make = `make${t}_${p}`;
      const over = `over${t}_${p}`;
      const stock = `stock${t}_${p}`;
      const shipped = `ship${t}_${p}`;
      variables.push({ name: make, ub: 40 + Math.floor(rand() * 40) }, { name: over }, { name: stock, ub: 200 }, { name: shipped });
      terms.push({ var: over, coef: 4 * unitCost[p]! }, { var: stock, coef: 0.2 + rand() });
      spend.push({ var: make, coef: unitCost[p]! });
      const previous = t > 0 ? [{ var: `stock${t - 1}_${p}`, coef: 1 }] : [];
      constraints.push({
        name: `balance${t}_${p}`,
        terms: [...previous, { var: make, coef: 1 }, { var: over, coef: 1 }, { var: stock, coef: -1 }, { var: shipped, coef: -1 }],
        lb: 0,
        ub: 0,
      });
      // shipped = demand: a singleton equality; 2·ship = 2·demand in a doubleton with the make column
      const demand = 10 + Math.floor(rand() * 50);
      constraints.push({ name: `demand${t}_${p}`, terms: [{ var: shipped, coef: 1 }], lb: demand, ub: demand });
    }
    for (let r = 0; r < resources; r++) {
      const row = use[r]!.flatMap((u, p) => (u ? [{ var: `make${t}_${p}`, coef: u }] : []));
      if (row.length === 0) continue;
      const cap = 150 + Math.floor(rand() * 250);
      constraints.push({ name: `res${t}_${r}`, terms: row, ub: cap });
      if (r === 0) constraints.push({ name: `res${t}_${r}_copy`, terms: row.map((e) => ({ ...e, coef: 2 * e.coef })), ub: 2 * cap + 7 });
    }
    constraints.push({ name: `cash${t}`, terms: spend, lb: 0, ub: 0 });
    terms.push({ var: cash, coef: 0.01 });
    variables.push({ name: `closed${t}`, lb: 3, ub: 3 });
    constraints.push({
      name: `link${t}`,
      terms: [
        { var: `closed${t}`, coef: 1 },
        { var: `make${t}_0`, coef: -0.5 },
      ],
      ub: 3,
    });
  }
  return ProblemSchema.parse({ name: "warm-production-plan", variables, objective: { terms }, constraints });
}

/**
 * Few rows over thousands of boxed columns (the shape of fit2d): the bound-flipping ratio test passes
 * many breakpoints and the column-wise PRICE dominates. Bounded: every column is boxed.
 */
function wideBoxedLp(rows: number, cols: number, seed: number): Problem {
  const rand = lcg(seed);
  const variables = Array.from({ length: cols }, (_, j) => ({ name: `w${j}`, lb: 0, ub: 1 + Math.floor(rand() * 9) }));
  const terms = variables.map((v) => ({ var: v.name, coef: -(1 + Math.floor(rand() * 100)) }));
  const constraints = Array.from({ length: rows }, (_, i) => {
    const row: { var: string; coef: number }[] = [];
    for (let j = 0; j < cols; j++) if (rand() < 0.25 || j % rows === i) row.push({ var: `w${j}`, coef: 1 + Math.floor(rand() * 20) });
    const full = row.reduce((s, e) => s + e.coef * variables[Number(e.var.slice(1))]!.ub, 0);
    return i % 3 === 2 ? { name: `k${i}`, terms: row, lb: 0.1 * full, ub: 0.3 * full } : { name: `k${i}`, terms: row, ub: 0.25 * full };
  });
  return ProblemSchema.parse({ name: "warm-wide-boxed", variables, objective: { terms }, constraints });
}

/** A multi-dimensional knapsack over binaries: branch and bound with cover cuts and heuristics. */
function knapsack(items: number, dims: number, seed: number): Problem {
  const rand = lcg(seed);
  const variables = Array.from({ length: items }, (_, j) => ({ name: `b${j}`, type: "binary" as const }));
  const weights = Array.from({ length: dims }, () => Array.from({ length: items }, () => 5 + Math.floor(rand() * 40)));
  const constraints = weights.map((w, d) => ({
    name: `cap${d}`,
    terms: w.map((coef, j) => ({ var: `b${j}`, coef })),
    ub: Math.floor(w.reduce((a, b) => a + b, 0) / 2),
  }));
  const terms = variables.map((v, j) => ({ var: v.name, coef: 10 + Math.floor(rand() * 50) + (j % 3) }));
  return ProblemSchema.parse({ name: "warm-knapsack", sense: "maximize", variables, objective: { terms }, constraints });
}

/** Capacitated facility location: binaries to open, continuous flows, a general-integer truck count. */
function facilityLocation(facilities: number, customers: number, seed: number): Problem {
  const rand = lcg(seed);
  const variables: { name: string; type?: "binary" | "integer"; lb?: number; ub?: number | null }[] = [];
  const terms: { var: string; coef: number }[] = [];
  const demand = Array.from({ length: customers }, () => 5 + Math.floor(rand() * 15));
  for (let f = 0; f < facilities; f++) {
    variables.push({ name: `open${f}`, type: "binary" }, { name: `trucks${f}`, type: "integer", lb: 0, ub: 10 });
    terms.push({ var: `open${f}`, coef: 80 + Math.floor(rand() * 60) }, { var: `trucks${f}`, coef: 7 });
    for (let c = 0; c < customers; c++) {
      variables.push({ name: `y${f}_${c}`, lb: 0, ub: null });
      terms.push({ var: `y${f}_${c}`, coef: Math.round(rand() * 90) / 10 });
    }
  }
  const capacity = Math.ceil((demand.reduce((a, b) => a + b, 0) / facilities) * 2);
  const constraints = [
    ...demand.map((d, c) => ({ name: `serve${c}`, terms: Array.from({ length: facilities }, (_, f) => ({ var: `y${f}_${c}`, coef: 1 })), lb: d, ub: d })),
    ...Array.from({ length: facilities }, (_, f) => ({
      name: `cap${f}`,
      terms: [...demand.map((_, c) => ({ var: `y${f}_${c}`, coef: 1 })), { var: `open${f}`, coef: -capacity }],
      ub: 0,
    })),
    ...Array.from({ length: facilities }, (_, f) => ({
      name: `fleet${f}`,
      terms: [...demand.map((_, c) => ({ var: `y${f}_${c}`, coef: 1 })), { var: `trucks${f}`, coef: -12 }],
      ub: 0,
    })),
  ];
  return ProblemSchema.parse({ name: "warm-facility", variables, objective: { terms }, constraints });
}

/** x + y ≥ 5 with x, y ≤ 2: infeasible, so the certificate code is compiled too. */
function infeasibleLp(): Problem {
  return ProblemSchema.parse({
    name: "warm-infeasible",
    variables: [
      { name: "x", ub: 2 },
      { name: "y", ub: 2 },
      { name: "z", ub: 4 },
    ],
    objective: { terms: [{ var: "x", coef: 1 }] },
    constraints: [
      {
        name: "c1",
        terms: [
          { var: "x", coef: 1 },
          { var: "y", coef: 1 },
          { var: "z", coef: -1 },
        ],
        lb: 5,
      },
      { name: "c2", terms: [{ var: "z", coef: 1 }], ub: 0 },
    ],
  });
}
