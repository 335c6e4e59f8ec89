import type { Problem } from "../../functions/core/problem/schema.js";
import type { WrittenProblem } from "../../functions/core/problem/write-common.js";

/** A problem read back from a file written with safeNames, under its original names again. */
export function withOriginalNames(problem: Problem, written: WrittenProblem): Problem {
  const column = new Map(written.fileColumnNames.map((n, j) => [n, written.columnNames[j]!]));
  const row = new Map(written.fileRowNames.map((n, i) => [n, written.rowNames[i]!]));
  const term = <T extends { var: string }>(t: T) => ({ ...t, var: column.get(t.var)! });
  return {
    ...problem,
    variables: problem.variables.map((v) => ({ ...v, name: column.get(v.name)! })),
    objective: {
      ...problem.objective,
      terms: problem.objective.terms.map(term),
      ...(problem.objective.quadratic && {
        quadratic: problem.objective.quadratic.map((q) => ({ ...q, var1: column.get(q.var1)!, var2: column.get(q.var2)! })),
      }),
    },
    constraints: problem.constraints.map((c) => ({ ...c, name: row.get(c.name)!, terms: c.terms.map(term) })),
  };
}
