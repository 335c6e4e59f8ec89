import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Config } from "../../functions/core/config.js";
import { emptyResult } from "../../functions/core/solvers/types.js";
import { createDefaultAdapters, probeAll } from "./adapters/index.js";
import { stopAllProcessGroups } from "./adapters/process.js";
import type { SolverToolkit } from "./toolkit.js";

/**
 * The solvers of this machine behind the SolverToolkit port. `warm` starts the Python host up front
 * (a standby worker pays Python's start-up before a job arrives, not during it).
 */
export async function createSolverToolkit(config: Config, options: { warm: boolean }): Promise<SolverToolkit> {
  const { adapters, python } = createDefaultAdapters(config.pythonPath);
  if (options.warm) await python.startHost().catch(() => undefined); // without it, solves use one-shot Python
  return {
    async solve(name, problem, settings, opts) {
      const adapter = adapters.get(name);
      if (!adapter) return { ...emptyResult("error", `solver ${name} is not registered`), settings_applied: null };
      const workDir = await mkdtemp(path.join(os.tmpdir(), `incumbent-${name}-`));
      try {
        return await adapter.solve(problem, settings, {
          workDir,
          signal: opts.signal,
          killGraceSeconds: opts.killGraceSeconds,
          memoryMb: config.solverMemoryMb,
        });
      } finally {
        await rm(workDir, { recursive: true, force: true });
      }
    },
    async inventory() {
      return (await probeAll(adapters)).map((p) => ({ name: p.name, available: p.available, version: p.version, detail: p.detail ?? null }));
    },
    /** Stops every solver process this worker started (CLI solvers, Node children, Python solves) and the Python host. */
    async close() {
      await Promise.all([stopAllProcessGroups(), python.stopHost()]);
    },
  };
}
