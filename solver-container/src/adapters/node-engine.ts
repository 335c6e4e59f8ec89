import { explanationSearchSeconds } from "../../../functions/core/solvers/iis/budget.js";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Problem } from "../../../functions/core/problem/schema.js";
import type { SolveSettings } from "../../../functions/core/solvers/types.js";
import { REPO_ROOT } from "./paths.js";
import { killProcessGroup, ranOutOfMemory, runChild, solverEnvironment, withMemoryCeiling } from "./process.js";
import { blankResult, finish, lastLines, memoryLimitMessage, noProgress, stoppedResult } from "./result.js";
import type { SolverName } from "../../../functions/core/solvers/types.js";
import type { AdapterResult, ProbeResult, Progress, SolveContext, SolverAdapter, TypeScriptEngine } from "./types.js";

/**
 * Runs a `TypeScriptEngine` (jaos, HiGHS-wasm) in a Node child under the kill switch. From sources
 * (tests, `npm start`) the child needs tsx to load TypeScript; a compiled build runs the .js entry as is.
 */
export interface NodeEngineModule {
  /** Absolute path of the module that exports the engine. */
  modulePath: string;
  exportName: string;
}

const HERE = fileURLToPath(import.meta.url);
/** Data-segment room for the Node runtime itself, on top of a child's memory ceiling. */
const NODE_RUNTIME_MB = 256;
const FROM_SOURCES = HERE.endsWith(".ts");
const CHILD_ENTRY = path.join(path.dirname(HERE), FROM_SOURCES ? "node-child.ts" : "node-child.js");

/** The module path of a sibling adapter file, with the extension this build uses. */
export function siblingModule(baseName: string): string {
  return path.join(path.dirname(HERE), `${baseName}${FROM_SOURCES ? ".ts" : ".js"}`);
}

/**
 * The child's command line. A memory ceiling holds the V8 heap (`--max-old-space-size`); the data
 * ceiling (typed arrays, WebAssembly memory) adds room for the runtime itself (Node and tsx take
 * ~120 MB before the engine allocates anything).
 */
function childLaunch(memoryMb: number | undefined, extra: string[] = []): { command: string; args: string[] } {
  const args = [
    ...(memoryMb ? [`--max-old-space-size=${Math.max(16, Math.floor(memoryMb))}`] : []),
    ...(FROM_SOURCES ? ["--import", "tsx"] : []),
    CHILD_ENTRY,
    ...extra,
  ];
  return withMemoryCeiling(process.execPath, args, memoryMb ? memoryMb + NODE_RUNTIME_MB : undefined);
}
// The repo root, so `--import tsx` resolves from the project's node_modules.
const CHILD_CWD = REPO_ROOT;

/**
 * How many solves one standby child serves before a fresh one replaces it. A served child keeps the code
 * V8 compiled on real models (the warm-up's small problems leave much of it cold: docs/bench/jaos.md,
 * "lpcold"), and its heap is the engine's garbage only; a bounded count keeps a slow leak, or a heap
 * fragmented by one huge model, from following the worker for its whole life.
 */
export const SOLVES_PER_STANDBY = 32;

/**
 * The resident set above which a child serves no further solve: half its memory ceiling, or this many MB
 * without one. A heap that one large model grew (and V8 keeps) must not leave the next solve less room
 * than a fresh child would have.
 */
export const STANDBY_RSS_MB_WITHOUT_CEILING = 1024;

/** The line a serving child prints after each result (node-child.ts): `{"event":"done","rssMb":…}`. */
function doneLine(line: string): { rssMb: number } | null {
  if (!line.startsWith('{"event":"done"')) return null;
  try {
    const rssMb = (JSON.parse(line) as { rssMb?: unknown }).rssMb;
    return { rssMb: typeof rssMb === "number" ? rssMb : Number.POSITIVE_INFINITY };
  } catch {
    return null;
  }
}

interface StandbyEntry {
  child: ChildProcessWithoutNullStreams;
  ready: Promise<boolean>;
  memoryMb: number | undefined;
  /** Removes the listeners `watch` added, when the child is taken for a solve. */
  release(): void;
}

/**
 * One Node child kept started ahead for an engine: it has imported the engine and run its warm-up while
 * the worker was idle, and waits for its request. Each solve runs in its own process group under the
 * kill switch; a solve that ends by itself with a result gives its child back (`giveBack`) for the next
 * one, up to `SOLVES_PER_STANDBY`. A solve stopped by the kill switch, or one that failed, takes its
 * child with it, and the next standby starts after the solve, not during it.
 */
export class StandbyChild {
  private current: StandbyEntry | null = null;
  /** Solves each child has served. */
  private readonly served = new WeakMap<ChildProcessWithoutNullStreams, number>();
  private closed = false;

  private readonly solvesPerChild: number;

  constructor(
    private readonly engine: NodeEngineModule,
    options: { solvesPerChild?: number } = {},
  ) {
    this.solvesPerChild = options.solvesPerChild ?? SOLVES_PER_STANDBY;
  }

  /** Starts a standby if none is running, under the memory ceiling its solve will have. */
  start(memoryMb?: number): void {
    if (this.closed || this.current) return;
    const launch = childLaunch(memoryMb, ["--standby", this.engine.modulePath, this.engine.exportName]);
    const child = spawn(launch.command, launch.args, {
      cwd: CHILD_CWD,
      env: solverEnvironment(),
      detached: true, // its own process group, as every solve
      stdio: ["pipe", "pipe", "pipe"],
    });
    child.stdin.on("error", () => undefined); // EPIPE if it died: its exit is what counts
    child.stderr.resume(); // warm-up notes are not worth keeping; the solve's own stderr is
    child.stdout.setEncoding("utf8");
    this.served.set(child, 0);
    this.watch(child, memoryMb, false);
  }

  /**
   * A child whose solve ended by itself: back into the pool, warm, while it is alive, has served fewer
   * than its share of solves, has not grown past its resident-set bound and no other child stands by;
   * else it is stopped.
   */
  giveBack(child: ChildProcessWithoutNullStreams, { memoryMb, rssMb }: { memoryMb: number | undefined; rssMb: number }): void {
    const served = (this.served.get(child) ?? 0) + 1;
    this.served.set(child, served);
    const alive = child.exitCode === null && child.signalCode === null;
    const grown = rssMb > (memoryMb ? memoryMb / 2 : STANDBY_RSS_MB_WITHOUT_CEILING);
    if (this.closed || this.current || !alive || grown || served >= this.solvesPerChild) {
      if (child.pid) void killProcessGroup(child.pid, 500);
      return;
    }
    child.stderr.resume();
    this.watch(child, memoryMb, true);
  }

  /** The standby's process id and the solves it has served (null when none stands by): for tests. */
  describe(): { pid: number; served: number } | null {
    const child = this.current?.child;
    return child?.pid ? { pid: child.pid, served: this.served.get(child) ?? 0 } : null;
  }

  /** Makes `child` the standby: ready at its ready line (at once when `warm`), gone when it exits. */
  private watch(child: ChildProcessWithoutNullStreams, memoryMb: number | undefined, warm: boolean): void {
    let settle: (ready: boolean) => void = () => undefined;
    const ready = new Promise<boolean>((resolve) => (settle = resolve));
    let buffered = "";
    const onData = (chunk: string) => {
      buffered += chunk;
      if (buffered.includes('"event":"ready"')) settle(true);
    };
    const onError = () => settle(false);
    const onExit = () => {
      settle(false);
      if (this.current === entry) this.current = null;
    };
    if (warm) settle(true);
    else child.stdout.on("data", onData);
    child.once("error", onError);
    child.once("exit", onExit);
    const entry: StandbyEntry = {
      child,
      memoryMb,
      ready,
      release: () => {
        child.stdout.off("data", onData);
        child.off("error", onError);
        child.off("exit", onExit);
      },
    };
    this.current = entry;
  }

  /** Resolves true once the standby has warmed up (false when none runs or it died): for benchmarks and tests. */
  async whenReady(): Promise<boolean> {
    return (await this.current?.ready) ?? false;
  }

  /**
   * The standby, taken out of the pool (null when none is alive). It need not have finished warming up:
   * it stops warming when its request arrives, and is further along than a child started now. A standby
   * started under another memory ceiling than the solve's is stopped, not used.
   */
  take(memoryMb: number | undefined): ChildProcessWithoutNullStreams | null {
    const entry = this.current;
    this.current = null;
    if (!entry || entry.child.exitCode !== null || entry.child.signalCode !== null) return null;
    if ((entry.memoryMb || 0) !== (memoryMb || 0)) {
      if (entry.child.pid) void killProcessGroup(entry.child.pid, 500);
      return null;
    }
    entry.release();
    return entry.child;
  }

  async close(): Promise<void> {
    this.closed = true;
    const entry = this.current;
    this.current = null;
    if (entry?.child.pid) await killProcessGroup(entry.child.pid, 500);
  }
}

/** One solve in a child process: the engine, its solver's title and version, and the solve's problem, settings and context. */
export interface NodeChildSolve {
  solverTitle: string;
  version: string | null;
  problem: Problem;
  settings: SolveSettings;
  context: SolveContext;
  /** A child started ahead of time, taken when it fits. */
  standby?: StandbyChild;
}

export async function solveInNodeChild(
  engine: NodeEngineModule,
  { solverTitle, version, problem, settings, context, standby }: NodeChildSolve,
): Promise<AdapterResult> {
  const started = performance.now();
  const resultPath = path.join(context.workDir, `node-result-${process.pid}-${Date.now()}.json`);
  let progress: Progress = noProgress();
  const spawned = context.signal?.aborted ? null : (standby?.take(context.memoryMb) ?? null);
  let rssMb = Number.POSITIVE_INFINITY;
  const launch = childLaunch(context.memoryMb);
  const outcome = await runChild({
    command: launch.command,
    args: launch.args,
    cwd: CHILD_CWD,
    spawned: spawned ?? undefined,
    // A standby serves request lines and says when each is done; it may serve the next solve too.
    keepAlive: spawned
      ? {
          isDone: (line) => {
            const done = doneLine(line);
            if (done) rssMb = done.rssMb;
            return done !== null;
          },
        }
      : undefined,
    input: JSON.stringify({ module: engine.modulePath, exportName: engine.exportName, problem, settings, resultPath }),
    // An explained infeasible LP's deletion filter runs in the child too (node-child.ts).
    deadlineMs:
      (settings.timeLimitSeconds + (settings.explainInfeasibility ? explanationSearchSeconds(settings.timeLimitSeconds) : 0) + context.killGraceSeconds) * 1000,
    signal: context.signal,
    onLine: (line, stream) => {
      if (stream !== "stdout") {
        context.progress?.line(line);
        return;
      }
      try {
        const event = JSON.parse(line) as { event?: string } & Progress;
        if (event.event === "progress") {
          progress = { incumbent: event.incumbent, bound: event.bound, nodes: event.nodes };
          context.progress?.point(progress);
        }
      } catch {
        // not a progress line
      }
    },
  });
  let result: AdapterResult | null = null;
  try {
    result = JSON.parse(await readFile(resultPath, "utf8")) as AdapterResult;
  } catch {
    result = null;
  }
  if (outcome.kept) {
    // Only a child that answered with a result and no error of its own serves again.
    if (standby && result && result.solver_status !== "error") standby.giveBack(outcome.kept, { memoryMb: context.memoryMb, rssMb });
    else if (outcome.kept.pid) void killProcessGroup(outcome.kept.pid, 500);
  }
  if (result?.solver_status === "error" && /allocation failed|out of memory/i.test(result.error_message ?? "")) {
    return finish({ ...result, solver_version: result.solver_version ?? version, error_message: memoryLimitMessage(solverTitle, context.memoryMb) }, started);
  }
  if (result) return finish({ ...result, solver_version: result.solver_version ?? version }, started);
  if (outcome.stopped)
    return finish(stoppedResult(outcome.stopped, { progress, version, limitSeconds: settings.timeLimitSeconds, solverName: solverTitle }), started);
  if (ranOutOfMemory(outcome)) return finish(blankResult("error", version, memoryLimitMessage(solverTitle, context.memoryMb)), started);
  const why = outcome.spawnError ?? `exit ${outcome.exitCode ?? outcome.exitSignal}: ${lastLines(outcome.stderr)}`;
  return finish(blankResult("error", version, `${solverTitle} child failed: ${why}`), started);
}

/**
 * An adapter for a solver written in TypeScript (how jaos plugs in): `engine.modulePath` exports a
 * `TypeScriptEngine` under `engine.exportName`. Probing imports the module here, which only reads its
 * version; every solve runs in a Node child under the kill switch.
 */
export function createTypeScriptEngineAdapter(name: SolverName, title: string, engine: NodeEngineModule): SolverAdapter {
  let probed: Promise<ProbeResult> | null = null;
  const probe = () =>
    (probed ??= (async (): Promise<ProbeResult> => {
      try {
        const mod = (await import(pathToFileURL(engine.modulePath).href)) as Record<string, TypeScriptEngine | undefined>;
        const loaded = mod[engine.exportName];
        if (!loaded) return { available: false, version: null, detail: `${engine.modulePath} has no export "${engine.exportName}"` };
        return { available: true, version: await loaded.version() };
      } catch (err) {
        return { available: false, version: null, detail: `${title} failed to load: ${(err as Error).message}` };
      }
    })());
  return {
    name,
    probe,
    async solve(problem, settings, context) {
      const started = performance.now();
      const info = await probe();
      if (!info.available) return finish(blankResult("error", null, `${title} is not available: ${info.detail}`), started);
      return solveInNodeChild(engine, { solverTitle: title, version: info.version, problem, settings, context });
    },
  };
}
