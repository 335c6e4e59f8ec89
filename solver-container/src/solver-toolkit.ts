import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Config } from "../../functions/core/config.js";
import { withoutServerPaths } from "../../functions/core/solvers/public-text.js";
import { emptyResult } from "../../functions/core/solvers/types.js";
import { createDefaultAdapters, probeAll } from "./adapters/index.js";
import { stopAllProcessGroups } from "./adapters/process.js";
import type { Progress } from "./adapters/types.js";
import type { SolverToolkit } from "./toolkit.js";

/**
 * The solvers of this machine behind the SolverToolkit port. `warm` starts the Python host up front and
 * lets each adapter keep a process started ahead (jaos), so a worker pays start-up and compilation
 * while idle, not during a job.
 */
export async function createSolverToolkit(config: Config, options: { warm: boolean }): Promise<SolverToolkit> {
  const { adapters, python } = createDefaultAdapters(config.pythonPath);
  const warmOptions = { memoryMb: config.solverMemoryMb };
  let keepHost = false;
  let closed = false;
  if (options.warm) {
    for (const adapter of adapters.values()) void adapter.warm?.(warmOptions);
    // Without a host, solves use one-shot Python; with one, a host that died is started again.
    keepHost = await python.startHost().then(
      () => true,
      () => false,
    );
  }
  return {
    async solve(name, { problem, settings, ...opts }) {
      const adapter = adapters.get(name);
      if (!adapter) return { ...emptyResult("error", `solver ${name} is not registered`), settings_applied: null };
      const workDir = await mkdtemp(path.join(os.tmpdir(), `incumbent-${name}-`));
      // What the solver says reaches the caller (the result's error, the live log) without server paths.
      const sink = opts.progress;
      const progress = sink && { point: (p: Progress) => sink.point(p), line: (text: string) => sink.line(withoutServerPaths(text, [workDir])) };
      try {
        const result = await adapter.solve(problem, settings, {
          workDir,
          signal: opts.signal,
          killGraceSeconds: opts.killGraceSeconds,
          memoryMb: config.solverMemoryMb,
          progress,
        });
        return result.error_message ? { ...result, error_message: withoutServerPaths(result.error_message, [workDir]) } : result;
      } finally {
        // The result is in hand: the files go while the worker reports it.
        void rm(workDir, { recursive: true, force: true }).catch(() => undefined);
      }
    },
    async inventory() {
      return (await probeAll(adapters)).map((p) => ({ name: p.name, available: p.available, version: p.version, detail: p.detail ?? null }));
    },
    async prepare() {
      if (!options.warm || closed) return;
      const host = keepHost && !python.hostRunning ? python.startHost().catch(() => undefined) : undefined;
      await Promise.all([host, ...[...adapters.values()].map((a) => a.warm?.(warmOptions))]);
    },
    /** Stops every solver process this worker started (CLI solvers, Node children, Python solves), the Python host and the children kept warm. */
    async close() {
      closed = true;
      await Promise.all([stopAllProcessGroups(), python.stopHost(), ...[...adapters.values()].map((a) => a.close?.())]);
    },
  };
}
