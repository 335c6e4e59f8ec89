import type { Problem, Variable } from "../../problem/schema.js";
import type { Infeasibility, VerdictCheck } from "../types.js";

/**
 * The members an infeasible subsystem is made of: whole constraints (both sides together, as the
 * result names them) and single variable bounds (a lower or an upper one). Integrality is never a
 * member: a subsystem of a MILP keeps every integer and binary column integral, so it is infeasible
 * as a MILP, not merely as its LP relaxation (docs/decisions.md, "Why infeasible").
 */
export type Member = { kind: "constraint"; row: number } | { kind: "bound"; column: number; side: "lower" | "upper" };

/** A binary column's domain is [0, 1] whatever its written bounds: those are its bounds here. */
function columnBounds(v: Variable): { lower: number | null; upper: number | null } {
  if (v.type !== "binary") return { lower: v.lb, upper: v.ub };
  return { lower: Math.max(v.lb ?? 0, 0), upper: Math.min(v.ub ?? 1, 1) };
}

/** Every member the problem has: each constraint with a finite side, each finite bound. */
export function allMembers(problem: Problem): Member[] {
  const members: Member[] = [];
  problem.constraints.forEach((c, row) => {
    if (c.lb !== null || c.ub !== null) members.push({ kind: "constraint", row });
  });
  problem.variables.forEach((v, column) => {
    const { lower, upper } = columnBounds(v);
    if (lower !== null) members.push({ kind: "bound", column, side: "lower" });
    if (upper !== null) members.push({ kind: "bound", column, side: "upper" });
  });
  return members;
}

export const memberKey = (m: Member): string => (m.kind === "constraint" ? `r${m.row}` : `${m.side === "lower" ? "l" : "u"}${m.column}`);

/**
 * The feasibility problem of a subset: the kept constraints, the kept bounds (every other bound
 * infinite), every column's integrality, and no objective, so that a solver's verdict is only about
 * feasibility (an objective could make a relaxed subsystem unbounded). Binary columns become integer
 * columns with their [0, 1] bounds written out, so dropping one of them is expressible.
 */
export function subproblem(problem: Problem, members: readonly Member[]): Problem {
  const kept = new Set(members.map(memberKey));
  return {
    name: `${problem.name}-subsystem`,
    sense: "minimize",
    objective: { constant: 0, terms: [] },
    variables: problem.variables.map((v, column) => {
      const { lower, upper } = columnBounds(v);
      return {
        name: v.name,
        type: v.type === "continuous" ? "continuous" : "integer",
        lb: kept.has(`l${column}`) ? lower : null,
        ub: kept.has(`u${column}`) ? upper : null,
      };
    }),
    constraints: problem.constraints.filter((_, row) => kept.has(`r${row}`)),
  };
}

/** Before any re-solve has spoken about the verdict (explain.ts sets what they showed). */
export const VERDICT_UNCONFIRMED: VerdictCheck = { status: "unconfirmed", solver: null, message: "not checked yet" };

/** Members as the result names them: constraints by name, a column's two bounds merged into "both". */
export function infeasibilityOf(
  problem: Problem,
  members: readonly Member[],
  how: Pick<Infeasibility, "method" | "irreducible" | "verified"> & Partial<Pick<Infeasibility, "verdict_check">>,
): Infeasibility {
  const rows = [...new Set(members.flatMap((m) => (m.kind === "constraint" ? [m.row] : [])))].sort((a, b) => a - b);
  const sides = new Map<number, Set<"lower" | "upper">>();
  for (const m of members) {
    if (m.kind === "bound") sides.set(m.column, (sides.get(m.column) ?? new Set()).add(m.side));
  }
  const columns = [...sides.keys()].sort((a, b) => a - b);
  return {
    constraints: rows.map((row) => ({ name: problem.constraints[row]!.name })),
    variable_bounds: columns.map((column) => {
      const s = sides.get(column)!;
      return { variable: problem.variables[column]!.name, bound: s.size === 2 ? "both" : [...s][0]! };
    }),
    verdict_check: VERDICT_UNCONFIRMED,
    ...how,
  };
}

/**
 * The members an answer names, read back against the problem (for the checker and for tests). A name
 * the problem does not have, or a bound it does not have, is an error: the answer is not about it.
 */
export function membersOf(problem: Problem, infeasibility: Pick<Infeasibility, "constraints" | "variable_bounds">): Member[] {
  const rowOf = new Map(problem.constraints.map((c, row) => [c.name, row]));
  const columnOf = new Map(problem.variables.map((v, column) => [v.name, column]));
  const members: Member[] = [];
  for (const c of infeasibility.constraints) {
    const row = rowOf.get(c.name);
    if (row === undefined) throw new Error(`the subsystem names constraint "${c.name}", which the problem does not have`);
    members.push({ kind: "constraint", row });
  }
  for (const b of infeasibility.variable_bounds) {
    const column = columnOf.get(b.variable);
    if (column === undefined) throw new Error(`the subsystem names variable "${b.variable}", which the problem does not have`);
    const { lower, upper } = columnBounds(problem.variables[column]!);
    for (const side of b.bound === "both" ? (["lower", "upper"] as const) : [b.bound]) {
      if ((side === "lower" ? lower : upper) === null) throw new Error(`the subsystem names the ${side} bound of "${b.variable}", which is infinite`);
      members.push({ kind: "bound", column, side });
    }
  }
  return members;
}
