import { SOLVER_NAMES, type SolverName } from "../../../functions/core/solvers/types.js";
import { createCbcAdapter } from "./cbc.js";
import { explaining } from "./explain.js";
import { createGlpkAdapter } from "./glpk.js";
import { createHighsAdapter, type HighsBuild } from "./highs.js";
import { createJaosAdapter } from "./jaos.js";
import { resolvePythonPath } from "./paths.js";
import { PythonRuntime } from "./python-host.js";
import { blankResult } from "./result.js";
import { createScipAdapter } from "./scip.js";
import type { ProbeResult, SolverAdapter } from "./types.js";

export type { AdapterResult, AppliedSettings, ProbeResult, Progress, SolveContext, SolverAdapter, TypeScriptEngine } from "./types.js";
export { PythonRuntime } from "./python-host.js";
export { resolvePythonPath } from "./paths.js";
export { createTypeScriptEngineAdapter } from "./node-engine.js";

/**
 * The solver container's adapters. A worker builds the registry once:
 *
 *   const python = new PythonRuntime({ pythonPath: resolvePythonPath(config.pythonPath) });
 *   await python.startHost().catch(log);   // optional: without it each SCIP/HiGHS solve starts Python
 *   const adapters = createAdapters({ python });
 *   const inventory = await probeAll(adapters);
 *   ... adapters.get("scip")!.solve(problem, settings, { workDir, killGraceSeconds, signal }) ...
 *   await python.stopHost();
 */

export interface AdapterOptions {
  /** The Python runtime for SCIP and native HiGHS; null = none on this machine (HiGHS falls back to wasm). */
  python: PythonRuntime | null;
  highsBuild?: HighsBuild;
  cbcCommand?: string;
  glpsolCommand?: string;
  /** Another jaos adapter (tests); by default the engine of packages/jaos (@incumbent/jaos), in a Node child. */
  jaos?: SolverAdapter;
}

export type AdapterRegistry = ReadonlyMap<SolverName, SolverAdapter>;

export function createAdapters(options: AdapterOptions): AdapterRegistry {
  const python = options.python;
  const highs = createHighsAdapter(python, options.highsBuild);
  const adapters: SolverAdapter[] = [
    python ? createScipAdapter(python) : unavailable("scip", "no Python runtime configured"),
    highs,
    createCbcAdapter({ command: options.cbcCommand }),
    createGlpkAdapter({ command: options.glpsolCommand }),
    options.jaos ?? createJaosAdapter(),
  ];
  // Every solver explains an infeasible verdict when asked (explain.ts); the re-solves call the plain adapters.
  const solvers = { nativeHighs: async () => ((await highs.native()) ? highs : null) };
  return new Map(adapters.map((a) => [a.name, explaining(a, solvers)]));
}

/** The registry with the configured Python interpreter (config `pythonPath`, relative to the repo root). */
export function createDefaultAdapters(pythonPath: string): { adapters: AdapterRegistry; python: PythonRuntime } {
  const python = new PythonRuntime({ pythonPath: resolvePythonPath(pythonPath) });
  return { adapters: createAdapters({ python }), python };
}

function unavailable(name: SolverName, detail: string): SolverAdapter {
  return {
    name,
    async probe() {
      return { available: false, version: null, detail };
    },
    async solve() {
      return { ...blankResult("error", null, `${name} is not available: ${detail}`), wall_time_ms: 0 };
    },
  };
}

export interface InventoryEntry extends ProbeResult {
  name: SolverName;
}

/** What this worker can run, in the registry's solver order; probes run concurrently. */
export async function probeAll(adapters: AdapterRegistry): Promise<InventoryEntry[]> {
  const names = SOLVER_NAMES.filter((n) => adapters.has(n));
  const probes = await Promise.all(
    names.map(async (name) => {
      try {
        return await adapters.get(name)!.probe();
      } catch (err) {
        return { available: false, version: null, detail: `probe failed: ${(err as Error).message}` };
      }
    }),
  );
  return names.map((name, i) => ({ name, ...probes[i]! }));
}
