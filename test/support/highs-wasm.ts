import type { Problem } from "../../functions/core/problem/schema.js";

/**
 * An independent check of compiled problems: HiGHS's WebAssembly build (npm `highs`) solving CPLEX LP
 * text written here. Deliberately small and separate from the product's LP writer, so a JModel test
 * does not trust the code it could share a bug with. Variables and rows are renamed v0…/r0… because
 * generated names such as `x[a,b]` are not valid LP-format names.
 */

export interface HighsOutcome {
  status: string;
  /** Objective including the problem's constant term. */
  objective: number;
  values: Record<string, number>;
}

interface HighsColumn {
  Primal: number;
}

interface HighsSolver {
  solve(lp: string): { Status: string; ObjectiveValue: number; Columns: Record<string, HighsColumn> };
}

let loaded: Promise<HighsSolver> | null = null;

async function highs(): Promise<HighsSolver> {
  loaded ??= import("highs").then(async (module) => (await module.default()) as unknown as HighsSolver);
  return loaded;
}

export async function solveWithHighs(problem: Problem): Promise<HighsOutcome> {
  const solver = await highs();
  const result = solver.solve(toLpText(problem));
  const values: Record<string, number> = {};
  problem.variables.forEach((v, i) => {
    const column = result.Columns[`v${i}`];
    if (column !== undefined) values[v.name] = column.Primal;
  });
  return { status: result.Status, objective: result.ObjectiveValue + problem.objective.constant, values };
}

const num = (x: number) => (Object.is(x, -0) ? "0" : String(x));

function linear(terms: { var: string; coef: number }[], column: Map<string, string>): string {
  return terms.map((t, k) => `${t.coef < 0 ? "-" : k === 0 ? "" : "+"} ${num(Math.abs(t.coef))} ${column.get(t.var)}`).join(" ");
}

export function toLpText(problem: Problem): string {
  const column = new Map(problem.variables.map((v, i) => [v.name, `v${i}`] as const));
  const lines: string[] = [problem.sense === "maximize" ? "Maximize" : "Minimize"];
  let objective = linear(problem.objective.terms, column);
  const quadratic = problem.objective.quadratic ?? [];
  if (quadratic.length > 0) {
    // LP format's quadratic block is [ … ] / 2, so each coefficient is written doubled.
    const inner = quadratic
      .map((q, k) => {
        const product = q.var1 === q.var2 ? `${column.get(q.var1)} ^ 2` : `${column.get(q.var1)} * ${column.get(q.var2)}`;
        return `${q.coef < 0 ? "-" : k === 0 ? "" : "+"} ${num(Math.abs(2 * q.coef))} ${product}`;
      })
      .join(" ");
    objective = `${objective === "" ? "" : `${objective} + `}[ ${inner} ] / 2`;
  }
  lines.push(` obj: ${objective === "" ? "0 v0" : objective}`);
  lines.push("Subject To");
  problem.constraints.forEach((c, i) => {
    if (c.terms.length === 0) return;
    const body = linear(c.terms, column);
    if (c.lb !== null && c.ub !== null && c.lb === c.ub) lines.push(` r${i}: ${body} = ${num(c.lb)}`);
    else {
      if (c.lb !== null) lines.push(` r${i}_lo: ${body} >= ${num(c.lb)}`);
      if (c.ub !== null) lines.push(` r${i}_up: ${body} <= ${num(c.ub)}`);
    }
  });
  lines.push("Bounds");
  problem.variables.forEach((v, i) => {
    const lb = v.lb === null ? "-inf" : num(v.lb);
    const ub = v.ub === null ? "+inf" : num(v.ub);
    lines.push(` ${lb} <= v${i} <= ${ub}`);
  });
  const integers = problem.variables.flatMap((v, i) => (v.type === "continuous" ? [] : [`v${i}`]));
  if (integers.length > 0) lines.push("General", ` ${integers.join(" ")}`);
  lines.push("End");
  return lines.join("\n");
}
