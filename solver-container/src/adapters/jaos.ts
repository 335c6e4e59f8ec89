import { hasIntegers, type Problem } from "../../../functions/core/problem/schema.js";
import { JAOS_VERSION, solveJaos, validTolerance } from "../../../functions/core/solvers/jaos-engine.js";
import type { SolveSettings } from "../../../functions/core/solvers/types.js";
import { jaosWarmUpSequence } from "./jaos-warm-up.js";
import { siblingModule, solveInNodeChild, StandbyChild } from "./node-engine.js";
import { blankResult } from "./result.js";
import type { AdapterResult, PoolSolution, Progress, SolverAdapter, TypeScriptEngine } from "./types.js";

/**
 * jaos, Incumbent's own LP/MILP engine (packages/jaos, through functions/core/solvers/jaos-engine.ts), pure TypeScript. Like every
 * solver it runs in a child process (a Node child, node-child.ts), so the worker's kill switch stops it
 * if it ever overran its own time limit. A warm worker keeps one child started ahead that has imported
 * the engine and solved a few small problems (`warmUp`), so a solve does not pay for V8 compiling the
 * engine; a child whose solve ended by itself serves the next one too, with the code V8 compiled on
 * real models (node-engine.ts, `StandbyChild`: a bounded number of solves and resident set). Settings: `time_limit`, `mip_rel_gap` and the
 * integrality tolerance (when given; the engine's default is 1e-6) reach the engine;
 * it is single-threaded, so `threads` reads back as 1. It cannot express quadratic terms (the registry
 * answers `unsupported`/`quadratic_terms` before an adapter is called; the engine refuses them too).
 */
export const JAOS_TITLE = "jaos";

export function jaosVersion(): string {
  return `jaos ${JAOS_VERSION}`;
}

/**
 * Rounds over the warm-up problems: V8 optimises a function after it has run hot a while, not at once
 * (three rounds left the small scale LPs ~20 % slower than the steady state; eight reach it, sixteen
 * gain nothing more: docs/decisions.md, "How warm the standby jaos child is").
 */
const WARM_UP_ROUNDS = 8;
/**
 * The warm-up's MILPs run every second round (four of the eight), its LPs every round: a budget that
 * cuts the rounds short still leaves the LPs more rounds than the MILPs. The MILPs are small (a
 * knapsack solved at its root, one of 25 nodes, a facility location of 18), so the eight rounds cost
 * about 3 s of CPU, half of it V8's compiler threads beside the solve and half in the first round
 * (docs/decisions.md, "How warm the standby jaos child is").
 */
const WARM_UP_MILP_EVERY = 2;
/**
 * The warm-up's wall-clock ceiling: a worker awaits its standby before it first polls, so a loaded
 * machine (several workers starting on two cores) gets a less warm child rather than a slow start.
 */
const WARM_UP_BUDGET_MS = 2500;

export const jaosEngine: TypeScriptEngine = {
  async version() {
    return jaosVersion();
  },

  async solve(problem: Problem, settings: SolveSettings, report: (progress: Progress) => void): Promise<AdapterResult> {
    const poolSize = settings.solutionPoolSize ?? 1;
    // Every incumbent improves on the one before: the last `poolSize` of them are the pool, best first.
    const incumbents: PoolSolution[] = [];
    const result = solveJaos(problem, {
      timeLimitSeconds: settings.timeLimitSeconds,
      gapTolerance: settings.gapTolerance,
      integralityTolerance: settings.integralityTolerance,
      onProgress: (p) => report({ incumbent: p.incumbent, bound: p.bound, nodes: p.nodes }),
      onIncumbent:
        poolSize > 1
          ? (found) => {
              incumbents.push(found);
              if (incumbents.length > poolSize) incumbents.shift();
            }
          : undefined,
    });
    const { stats: _stats, ...row } = result;
    const pool = poolSize > 1 && row.solution !== null && hasIntegers(problem) ? { solution_pool: incumbents.reverse() } : {};
    return {
      ...row,
      ...pool,
      solver_version: jaosVersion(),
      settings_applied: {
        time_limit: settings.timeLimitSeconds,
        mip_rel_gap: settings.gapTolerance,
        threads: 1,
        ...(settings.integralityTolerance !== undefined ? { integrality_tolerance: validTolerance(settings.integralityTolerance) } : {}),
      },
    };
  },

  async warmUp(requestArrived) {
    const endBy = performance.now() + WARM_UP_BUDGET_MS;
    for (const problem of jaosWarmUpSequence(WARM_UP_ROUNDS, WARM_UP_MILP_EVERY)) {
      // Let stdin be read between problems: a request that arrived ends the warm-up.
      await new Promise((resolve) => setImmediate(resolve));
      if (requestArrived() || performance.now() > endBy) return;
      solveJaos(problem, { timeLimitSeconds: 1, gapTolerance: 1e-6 });
    }
  },
};

const ENGINE = { modulePath: siblingModule("jaos"), exportName: "jaosEngine" };

export function createJaosAdapter(): SolverAdapter & { standbyReady(): Promise<boolean> } {
  let standby: StandbyChild | undefined;
  return {
    name: "jaos",
    async probe() {
      return { available: true, version: jaosVersion(), detail: "pure TypeScript, runs in a Node child" };
    },
    async solve(problem, settings, context) {
      if ((problem.objective.quadratic?.length ?? 0) > 0)
        return { ...blankResult("error", jaosVersion(), "jaos cannot express quadratic terms"), wall_time_ms: 0 };
      return solveInNodeChild(ENGINE, { solverTitle: JAOS_TITLE, version: jaosVersion(), problem, settings, context, standby });
    },
    async warm(options) {
      standby ??= new StandbyChild(ENGINE);
      standby.start(options?.memoryMb);
      await standby.whenReady();
    },
    async close() {
      await standby?.close();
    },
    /** True once the child started ahead has warmed up (benchmarks wait for it, as an idle worker would). */
    async standbyReady() {
      return (await standby?.whenReady()) ?? false;
    },
  };
}
