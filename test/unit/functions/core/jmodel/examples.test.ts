import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkJModel, compileJModel } from "../../../../../functions/core/jmodel/index.js";
import { ProblemSchema } from "../../../../../functions/core/problem/schema.js";
import { solveWithHighs } from "../../../../support/highs-wasm.js";
import { REPO_ROOT } from "../../../../support/machine.js";

/**
 * The five example models, compiled with each of their datasets and solved by HiGHS (WebAssembly),
 * against optima known from the literature or recomputed here by a method that shares nothing with
 * JModel or the LP: dynamic programming, enumeration, an LP duality certificate.
 */

const EXAMPLES = path.join(REPO_ROOT, "examples/jmodel");

type Data = Record<string, any>;

function example(name: string, dataset = "data.json"): { source: string; data: Data } {
  return {
    source: readFileSync(path.join(EXAMPLES, name, "model.jmod"), "utf8"),
    data: JSON.parse(readFileSync(path.join(EXAMPLES, name, dataset), "utf8")) as Data,
  };
}

/** Compiles, checks the canonical shape, solves; returns the optimum and solution. */
async function solve(name: string, dataset = "data.json") {
  const { source, data } = example(name, dataset);
  expect(checkJModel(source)).toEqual([]);
  const { problem } = compileJModel(source, data, { name });
  const parsed = ProblemSchema.safeParse(problem);
  expect(parsed.success, parsed.success ? "" : JSON.stringify(parsed.error.issues.slice(0, 3))).toBe(true);
  const result = await solveWithHighs(problem);
  expect(result.status).toBe("Optimal");
  return result;
}

const relClose = (actual: number, expected: number) => expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(expected)));

/** 0-1 knapsack by dynamic programming over integer capacities. */
function knapsackOptimum(data: Data): number {
  const items: unknown[] = data.ITEMS;
  const read = (p: Data | [unknown, number][], item: unknown) => (Array.isArray(p) ? p.find((row) => row[0] === item)![1] : (p as Data)[String(item)]);
  const best = new Array<number>(data.capacity + 1).fill(0);
  for (const item of items) {
    const w = read(data.weight, item);
    const v = read(data.value, item);
    for (let c = data.capacity; c >= w; c--) best[c] = Math.max(best[c]!, best[c - w]! + v);
  }
  return best[data.capacity]!;
}

/** Uncapacitated facility location by enumerating every non-empty set of open sites. */
function facilityOptimum(data: Data): number {
  const sites: string[] = data.SITES;
  let best = Infinity;
  for (let mask = 1; mask < 1 << sites.length; mask++) {
    const open = sites.filter((_, i) => mask & (1 << i));
    let cost = open.reduce((sum, s) => sum + data.opening_cost[s], 0);
    for (const c of data.CUSTOMERS as string[]) {
      const nearest = Math.min(...open.map((s) => Math.hypot(data.site_x[s] - data.customer_x[c], data.site_y[s] - data.customer_y[c])));
      cost += (data.cost_per_unit_distance ?? 1) * data.demand[c] * nearest;
    }
    best = Math.min(best, cost);
  }
  return best;
}

/** Uncapacitated lot sizing by the Wagner-Whitin recursion (no initial stock). */
function lotSizingOptimum(data: Data): number {
  const T: number = data.T;
  const series = (p: Data | [number, number][] | undefined) => {
    const out = new Array<number>(T + 1).fill(0);
    if (p === undefined) return out;
    if (Array.isArray(p)) for (const [t, v] of p) out[t] = v;
    else for (const [t, v] of Object.entries(p)) out[Number(t)] = v as number;
    return out;
  };
  const [d, K, c, h] = [series(data.demand), series(data.setup_cost), series(data.unit_cost), series(data.holding_cost)];
  const best = new Array<number>(T + 1).fill(Infinity);
  best[0] = 0;
  for (let j = 1; j <= T; j++) {
    // Produce in period i for periods i..j: stock at the end of t (i <= t < j) carries d[t+1..j].
    for (let i = 1; i <= j; i++) {
      let cost = best[i - 1]! + K[i]!;
      for (let t = i; t <= j; t++) cost += c[i]! * d[t]!;
      for (let t = i; t < j; t++) for (let s = t + 1; s <= j; s++) cost += h[t]! * d[s]!;
      best[j] = Math.min(best[j]!, cost);
    }
  }
  return best[T]!;
}

describe("JModel examples, solved by HiGHS and checked independently", () => {
  it("covers every example directory", () => {
    expect(readdirSync(EXAMPLES).sort()).toEqual(["diet", "facility-location", "knapsack", "production-planning", "transportation"]);
  });

  it("diet: Polly's menu costs 92.5 cents (Chvátal 1983), proven by a dual certificate", async () => {
    const result = await solve("diet");
    relClose(result.objective, 92.5);
    expect(result.values["servings[oatmeal]"]).toBeCloseTo(4, 6);
    expect(result.values["servings[whole-milk]"]).toBeCloseTo(4.5, 6);
    expect(result.values["servings[cherry-pie]"]).toBeCloseTo(2, 6);
    // Dual certificate, from the data alone: energy's price y = 9/160 (milk is basic); foods cheaper
    // than their energy worth sit at their upper bound. Reduced costs must be >= 0 below the bound
    // and the dual objective must equal 92.5, so no menu is cheaper.
    const { data } = example("diet");
    const content = (food: string, nutrient: string) => data.content.find((r: [string, string, number]) => r[0] === food && r[1] === nutrient)[2];
    const y = 9 / 160;
    let dual = data.requirement.energy * y;
    for (const food of data.FOODS as string[]) {
      const reduced = data.price[food] - content(food, "energy") * y;
      if (reduced < 0) dual += reduced * data.max_servings[food];
    }
    relClose(dual, 92.5);
  });

  it("transportation: the GAMS `trnsport` optimum 153.675", async () => {
    const result = await solve("transportation");
    relClose(result.objective, 153.675);
  });

  it.each([
    ["data.json", 1030],
    ["data-p01.json", 309],
  ])("knapsack %s: optimum %d, confirmed by dynamic programming", async (dataset, known) => {
    const result = await solve("knapsack", dataset);
    relClose(result.objective, known);
    expect(knapsackOptimum(example("knapsack", dataset).data)).toBe(known);
  });

  it("facility location: optimum 553.3704 (north and south open), confirmed by enumeration", async () => {
    const result = await solve("facility-location");
    const enumerated = facilityOptimum(example("facility-location").data);
    relClose(enumerated, 553.370361973534);
    relClose(result.objective, enumerated);
    expect(result.values["open[north]"]).toBeCloseTo(1, 6);
    expect(result.values["open[south]"]).toBeCloseTo(1, 6);
  });

  it.each([
    ["data.json", 795],
    ["data-seasonal.json", 820],
  ])("production planning %s: optimum %d, confirmed by the Wagner-Whitin recursion", async (dataset, known) => {
    const result = await solve("production-planning", dataset);
    relClose(result.objective, known);
    expect(lotSizingOptimum(example("production-planning", dataset).data)).toBe(known);
  });
});
