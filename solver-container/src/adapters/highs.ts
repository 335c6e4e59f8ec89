import { highsWasmEngine } from "./highs-wasm.js";
import { siblingModule, solveInNodeChild } from "./node-engine.js";
import { solveInPython } from "./python-solve.js";
import type { PythonRuntime } from "./python-host.js";
import type { ProbeResult, SolverAdapter } from "./types.js";

/**
 * HiGHS: native through highspy when the Python runtime has it (the container's normal case), else the
 * WebAssembly build from npm `highs` in a Node child (single-threaded, 2–10× slower on MILPs). The
 * result's `solver_version` says which ran. Settings: `time_limit`, `mip_rel_gap`, `threads`.
 */
export type HighsBuild = "auto" | "native" | "wasm";

const WASM_ENGINE = { modulePath: siblingModule("highs-wasm"), exportName: "highsWasmEngine" };

async function wasmProbe(detail: string): Promise<ProbeResult> {
  try {
    return { available: true, version: await highsWasmEngine.version(), detail };
  } catch (err) {
    return { available: false, version: null, detail: `${detail}; the WebAssembly build failed to load: ${(err as Error).message}` };
  }
}

export type HighsAdapter = SolverAdapter & {
  /** True when solves run native HiGHS (highspy), not the WebAssembly build. */
  native(): Promise<boolean>;
};

export function createHighsAdapter(python: PythonRuntime | null, build: HighsBuild = "auto"): HighsAdapter {
  let chosen: Promise<{ native: boolean; probe: ProbeResult }> | null = null;
  const choose = () =>
    (chosen ??= (async () => {
      if (build !== "wasm" && python) {
        const native = (await python.probe()).highs;
        if (native.available || build === "native") return { native: true, probe: native };
        return { native: false, probe: await wasmProbe(`native HiGHS not available (${native.detail ?? "no detail"}); running the WebAssembly build`) };
      }
      return { native: false, probe: await wasmProbe(build === "wasm" ? "WebAssembly build (requested)" : "no Python runtime; running the WebAssembly build") };
    })());

  return {
    name: "highs",
    async probe() {
      return (await choose()).probe;
    },
    async native() {
      const { native, probe } = await choose();
      return native && probe.available;
    },
    async solve(problem, settings, context) {
      const { native, probe } = await choose();
      if (native && python) return solveInPython(python, { solver: "highs", version: probe.version, problem, settings, context });
      return solveInNodeChild(WASM_ENGINE, { solverTitle: "HiGHS (wasm)", version: probe.version, problem, settings, context });
    },
  };
}
