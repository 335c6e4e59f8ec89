import { solveInPython } from "./python-solve.js";
import type { PythonRuntime } from "./python-host.js";
import { blankResult, finish } from "./result.js";
import type { SolverAdapter } from "./types.js";

/**
 * SCIP through pyscipopt (no SCIP exists on npm or in Debian). Settings: `limits/time`, `limits/gap`,
 * `lp/threads` (SCIP's search itself is sequential), `limits/memory` under a memory ceiling. Quadratic
 * objectives, with or without integers, go in through an epigraph constraint bounded by the unconstrained
 * optimum when convex, and are reported as evaluated at the point (solve_scip.set_quadratic_objective).
 * An `inforunbd` answer, or an `unbounded` one without a finite feasible point, is settled by the runner
 * (re-solve without presolve, then a feasibility check) or reported as an error, never guessed.
 */
export function createScipAdapter(python: PythonRuntime): SolverAdapter {
  return {
    name: "scip",
    async probe() {
      return (await python.probe()).scip;
    },
    async solve(problem, settings, context) {
      const started = performance.now();
      const probe = (await python.probe()).scip;
      if (!probe.available) return finish(blankResult("error", null, `SCIP is not available: ${probe.detail ?? "unknown reason"}`), started);
      return solveInPython(python, { solver: "scip", version: probe.version, problem, settings, context });
    },
  };
}
