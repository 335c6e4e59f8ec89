import type { ProblemInput } from "../../functions/core/problem/schema.js";

/**
 * Small JModel models used by the comparison tests, with datasets generated from a fixed seed.
 */

/** Market split (Cornuéjols & Dawande): equality knapsacks that branch and bound finds very hard. */
export const MARKET_SPLIT = `
set ROWS;
set ITEMS;
param a{ROWS, ITEMS} >= 0;
param d{ROWS} >= 0;
var x{ITEMS} binary;
var over{ROWS} >= 0;
var under{ROWS} >= 0;
minimize slack: sum{i in ROWS} (over[i] + under[i]);
subject to split{i in ROWS}: sum{j in ITEMS} a[i, j] * x[j] - over[i] + under[i] == d[i];
`;

/** A deterministic linear congruential generator, so datasets are the same on every run. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

export function marketSplitData(rows: number, items: number, seed: number): Record<string, unknown> {
  const rand = seeded(seed);
  const ROWS = Array.from({ length: rows }, (_, i) => `r${i + 1}`);
  const ITEMS = Array.from({ length: items }, (_, j) => `j${j + 1}`);
  const a: Record<string, Record<string, number>> = {};
  const d: Record<string, number> = {};
  for (const r of ROWS) {
    a[r] = {};
    let sum = 0;
    for (const j of ITEMS) {
      const v = Math.floor(rand() * 100);
      a[r]![j] = v;
      sum += v;
    }
    d[r] = Math.floor(sum / 2);
  }
  return { ROWS, ITEMS, a, d };
}

export const KNAPSACK = `
set ITEMS;
param weight{ITEMS} > 0;
param value{ITEMS} >= 0;
param capacity >= 0;
var take{ITEMS} binary;
maximize total_value: sum{i in ITEMS} value[i] * take[i];
subject to fits: sum{i in ITEMS} weight[i] * take[i] <= capacity;
`;

export function knapsackData(
  items: number,
  seed: number,
): { ITEMS: string[]; weight: Record<string, number>; value: Record<string, number>; capacity: number } {
  const rand = seeded(seed);
  const ITEMS = Array.from({ length: items }, (_, i) => `item${i + 1}`);
  const weight: Record<string, number> = {};
  const value: Record<string, number> = {};
  let total = 0;
  for (const i of ITEMS) {
    weight[i] = 1 + Math.floor(rand() * 30);
    value[i] = 1 + Math.floor(rand() * 50);
    total += weight[i]!;
  }
  return { ITEMS, weight, value, capacity: Math.floor(total / 3) };
}

/** The knapsack optimum by dynamic programming: an answer independent of every solver. */
export function knapsackOptimum(data: ReturnType<typeof knapsackData>): number {
  const best = new Array<number>(data.capacity + 1).fill(0);
  for (const i of data.ITEMS) {
    const w = data.weight[i]!;
    const v = data.value[i]!;
    for (let c = data.capacity; c >= w; c--) best[c] = Math.max(best[c]!, best[c - w]! + v);
  }
  return best[data.capacity]!;
}

/** A market-split instance as a canonical problem: minimise the slack of each row's equality. */
export function marketSplitProblem(rows: number, items: number, seed: number): ProblemInput {
  const data = marketSplitData(rows, items, seed) as { ROWS: string[]; ITEMS: string[]; a: Record<string, Record<string, number>>; d: Record<string, number> };
  const slacks = data.ROWS.flatMap((r) => [`over_${r}`, `under_${r}`]);
  return {
    name: `market_split_${rows}x${items}`,
    variables: [...data.ITEMS.map((j) => ({ name: j, type: "binary" as const })), ...slacks.map((name) => ({ name }))],
    objective: { terms: slacks.map((name) => ({ var: name, coef: 1 })) },
    constraints: data.ROWS.map((r) => ({
      name: r,
      terms: [...data.ITEMS.map((j) => ({ var: j, coef: data.a[r]![j]! })), { var: `over_${r}`, coef: -1 }, { var: `under_${r}`, coef: 1 }],
      lb: data.d[r]!,
      ub: data.d[r]!,
    })),
  };
}

/** max x + 2y over the box x ≤ 4, y ≤ 3: optimum 10, any LP solver, a few milliseconds. */
export const BOX_LP: ProblemInput = {
  name: "box",
  sense: "maximize",
  variables: [
    { name: "x", ub: 4 },
    { name: "y", ub: 3 },
  ],
  objective: {
    terms: [
      { var: "x", coef: 1 },
      { var: "y", coef: 2 },
    ],
  },
  constraints: [],
};

/** max x + 2y over x ≤ 4, y ≤ 3, x + y ≤ 5: optimum 8 at (2, 3); any LP solver answers in milliseconds. */
export const TINY_LP: ProblemInput = {
  name: "tiny",
  sense: "maximize",
  variables: [
    { name: "x", ub: 4 },
    { name: "y", ub: 3 },
  ],
  objective: {
    terms: [
      { var: "x", coef: 1 },
      { var: "y", coef: 2 },
    ],
  },
  constraints: [
    {
      name: "c",
      terms: [
        { var: "x", coef: 1 },
        { var: "y", coef: 1 },
      ],
      ub: 5,
    },
  ],
};

/** max 3x + 2y + 1, 2x + 3y ≤ 11, x ∈ {0..10}, y binary, with names a file format must escape ("x[1] a", "small milp"): optimum 16 at x = 5, y = 0. */
export const ODD_NAMES_MILP: ProblemInput = {
  name: "small milp",
  sense: "maximize",
  variables: [
    { name: "x[1] a", type: "integer", ub: 10 },
    { name: "y", type: "binary" },
  ],
  objective: {
    constant: 1,
    terms: [
      { var: "x[1] a", coef: 3 },
      { var: "y", coef: 2 },
    ],
  },
  constraints: [
    {
      name: "cap",
      terms: [
        { var: "x[1] a", coef: 2 },
        { var: "y", coef: 3 },
      ],
      ub: 11,
    },
  ],
};

/** max x + 2y, x ≤ 4, y integer ≤ 10, x + y ≤ 5.5: optimum 10.5 at (0.5, 5); every solver, a few nodes. */
export const SMALL_MILP: ProblemInput = {
  name: "small-milp",
  sense: "maximize",
  variables: [
    { name: "x", ub: 4 },
    { name: "y", type: "integer", ub: 10 },
  ],
  objective: {
    terms: [
      { var: "x", coef: 1 },
      { var: "y", coef: 2 },
    ],
  },
  constraints: [
    {
      name: "cap",
      terms: [
        { var: "x", coef: 1 },
        { var: "y", coef: 1 },
      ],
      ub: 5.5,
    },
  ],
};

/**
 * max −x − 2y − 3z s.t. x + y + z ≥ 2 (cover), x − y ≤ 1 (balance), x + z ≤ 10 (cap): optimum −2.5 at
 * (1.5, 0.5, 0); in the convention of functions/core/solvers/duals.ts the duals are cover −1.5,
 * balance 0.5, cap 0 and the reduced costs x 0, y 0, z −1.5 (a maximisation: every sign flipped).
 */
export const DUALS_MAX_LP: ProblemInput = {
  name: "duals",
  sense: "maximize",
  variables: [{ name: "x" }, { name: "y" }, { name: "z" }],
  objective: {
    terms: [
      { var: "x", coef: -1 },
      { var: "y", coef: -2 },
      { var: "z", coef: -3 },
    ],
  },
  constraints: [
    {
      name: "cover",
      lb: 2,
      terms: [
        { var: "x", coef: 1 },
        { var: "y", coef: 1 },
        { var: "z", coef: 1 },
      ],
    },
    {
      name: "balance",
      ub: 1,
      terms: [
        { var: "x", coef: 1 },
        { var: "y", coef: -1 },
      ],
    },
    {
      name: "cap",
      ub: 10,
      terms: [
        { var: "x", coef: 1 },
        { var: "z", coef: 1 },
      ],
    },
  ],
};

/**
 * A JModel model of regional capacity against demand, and data whose capacities (2 + 3) fall short of
 * the demand (10): infeasible, and explained by `within_capacity["north"]`, `within_capacity["south"]`
 * and `meet_demand`.
 */
export const SUPPLY_JMODEL = `set REGIONS;
param capacity{REGIONS} >= 0;
param demand >= 0;
var make{REGIONS} >= 0;
minimize cost: sum{r in REGIONS} make[r];
subject to within_capacity{r in REGIONS}: make[r] <= capacity[r];
subject to meet_demand: sum{r in REGIONS} make[r] >= demand;
`;
export const SUPPLY_SHORT_DATA = { REGIONS: ["north", "south"], capacity: { north: 2, south: 3 }, demand: 10 };
