import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { MatrixForm } from "./matrix-form.js";
import { PYTHON_RUNNER } from "./paths.js";
import { forgetProcessGroup, killProcessGroup, processGroupAlive, registerProcessGroup, runChild, solverEnvironment, type StopReason } from "./process.js";
import { lastLines, noProgress } from "./result.js";
import type { ProbeResult, Progress } from "./types.js";

/**
 * SCIP and native HiGHS run in Python (solver-container/python/runner.py). A worker starts one warm host
 * per process (`startHost`), which has both modules imported and forks one child per solve; the kill
 * switch kills exactly that child's process group. Without a running host, each solve spawns a one-shot
 * `runner.py --once` instead: the same solve code, ~0.2 s slower.
 */

export type PythonSolverName = "scip" | "highs";

export interface PythonSolveRequest {
  solver: PythonSolverName;
  model: Omit<MatrixForm, "colNames">;
  /** memory_mb: the solving process's data ceiling (0 = none), applied by the runner in that process. */
  /** stream: forward the solver's log lines and report progress between its own log lines too (someone records them). */
  /** explain_infeasibility: an infeasible result then carries `iis` (the solver's own), searched for at most explain_seconds. */
  settings: {
    time_limit: number;
    gap: number;
    threads: number;
    memory_mb?: number;
    solution_pool_size?: number;
    ranging?: boolean;
    stream?: boolean;
    explain_infeasibility?: boolean;
    explain_seconds?: number;
    /** The integrality tolerance (HiGHS mip_feasibility_tolerance, SCIP numerics/feastol); absent = the solver's default. */
    integrality_tolerance?: number;
    /** The row feasibility tolerance (HiGHS primal_feasibility_tolerance, SCIP numerics/feastol); absent = the solver's default. */
    feasibility_tolerance?: number;
  };
}

/** The result file a solve writes (runner.py, solve_common.empty_result). */
export interface PythonResult {
  solver_status: "optimal" | "feasible" | "infeasible" | "unbounded" | "time_limit" | "error";
  objective_value: number | null;
  dual_bound: number | null;
  nodes: number | null;
  iterations: number | null;
  solver_time_seconds: number | null;
  solution: number[] | null;
  solver_version: string | null;
  error_message: string | null;
  settings_applied: Record<string, string | number | boolean> | null;
  raw_status: string | null;
  /** An LP solved to optimality: row duals by row index (rows the solver never saw are absent), in the problem's sense. */
  row_duals?: Record<string, number>;
  /** With settings.ranging (HiGHS): by column and by row, null = no limit. */
  ranging?: { cost_down: (number | null)[]; cost_up: (number | null)[]; rhs_down: (number | null)[]; rhs_up: (number | null)[] };
  /** With row_duals: the reduced costs in column order (absent: computed as c − Aᵀy). */
  col_duals?: number[];
  /** With solution_pool_size above 1: distinct solutions, best first, as column vectors. */
  solution_pool?: { objective_value: number; solution: number[] }[];
  /**
   * With explain_infeasibility, an infeasible result: the solver's IIS (row indices, [column, side]
   * bounds, its own irreducibility verdict); null when it gave none (HiGHS on a MILP, a time-out).
   */
  iis?: { rows: number[]; bounds: [number, "lower" | "upper" | "both"][]; irreducible: boolean } | null;
  /** With settings.initial_solution on a MILP: whether the start reached the solver, its word on it (null: none), a note. */
  start?: { passed: boolean; accepted: boolean | null; note: string | null };
  /** With settings.initial_basis on an LP (HiGHS): whether the basis reached HiGHS and was a basis. */
  basis_start?: { passed: boolean; accepted: boolean | null; note: string | null };
  /** An LP's optimal basis (HiGHS): HighsBasisStatus numbers by column and by row. */
  basis?: { col: number[]; row: number[] };
}

export interface PythonRunOptions {
  workDir: string;
  /** Kill the solve this many ms after it was sent; null = never. */
  deadlineMs: number | null;
  signal?: AbortSignal;
  termGraceMs?: number;
  onProgress?: (progress: Progress) => void;
  /** The solver's own log lines, as the solving process forwards them. */
  onLog?: (line: string) => void;
}

export interface PythonRunOutcome {
  /** The solving process (forked child or one-shot interpreter), which led its own process group. */
  pid: number | null;
  result: PythonResult | null;
  stopped: StopReason | null;
  /** Why there is no result (exit status and the interpreter's last words). */
  failure: string | null;
  progress: Progress;
  via: "host" | "once";
}

interface PendingSolve {
  resultPath: string;
  pid: number | null;
  stopped: StopReason | null;
  progress: Progress;
  options: PythonRunOptions;
  timer: NodeJS.Timeout | null;
  onAbort: () => void;
  resolve: (outcome: PythonRunOutcome) => void;
}

type HostEvent =
  | { event: "ready"; pid: number; solvers: Record<PythonSolverName, ProbeResult> }
  | { event: "started"; id: string; pid: number }
  | { event: "progress"; id: string; incumbent: number | null; bound: number | null; nodes: number | null }
  | { event: "log"; id: string; text: string }
  | { event: "exited"; id: string; pid: number; code: number | null; signal: number | null }
  | { event: "error"; id: string | null; message: string };

export class PythonRuntime {
  readonly pythonPath: string;
  readonly runnerPath: string;
  private host: ChildProcessWithoutNullStreams | null = null;
  private starting: Promise<void> | null = null;
  private hostProbe: Record<PythonSolverName, ProbeResult> | null = null;
  private probeCache: Promise<Record<PythonSolverName, ProbeResult>> | null = null;
  private readonly pending = new Map<string, PendingSolve>();
  private nextId = 1;
  private hostStderr = "";
  /** startHost was called and stopHost not: a host that died is started again for the next solve. */
  private wanted = false;

  constructor(options: { pythonPath: string; runnerPath?: string }) {
    this.pythonPath = options.pythonPath;
    this.runnerPath = options.runnerPath ?? PYTHON_RUNNER;
  }

  get hostRunning(): boolean {
    return this.host !== null;
  }

  get hostPid(): number | null {
    return this.host?.pid ?? null;
  }

  /**
   * Starts the warm host and waits until it has imported the solvers. Rejects (and leaves solves on the
   * one-shot path) when Python or the runner cannot start.
   */
  startHost(timeoutMs = 30_000): Promise<void> {
    this.wanted = true;
    if (this.host) return Promise.resolve();
    this.starting ??= this.spawnHost(timeoutMs).finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async spawnHost(timeoutMs: number): Promise<void> {
    const child = spawn(this.pythonPath, [this.runnerPath, "--host"], { stdio: ["pipe", "pipe", "pipe"], env: solverEnvironment() });
    // EPIPE after the host died: its exit handler fails the pending solves.
    child.stdin.on("error", () => undefined);
    await new Promise<void>((resolve, reject) => {
      let buffered = "";
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`python host did not report ready within ${timeoutMs} ms`));
      }, timeoutMs);
      child.on("error", (err) => {
        clearTimeout(timer);
        reject(new Error(`python host could not start (${this.pythonPath}): ${err.message}`));
      });
      child.stderr.setEncoding("utf8");
      child.stderr.on("data", (chunk: string) => {
        this.hostStderr = (this.hostStderr + chunk).slice(-8192);
      });
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", (chunk: string) => {
        buffered += chunk;
        let nl = buffered.indexOf("\n");
        while (nl >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          nl = buffered.indexOf("\n");
          let event: HostEvent;
          try {
            event = JSON.parse(line) as HostEvent;
          } catch {
            continue; // not ours: a stray print from a library
          }
          if (event.event === "ready") {
            clearTimeout(timer);
            this.host = child;
            this.hostProbe = event.solvers;
            resolve();
          } else {
            this.onHostEvent(event);
          }
        }
      });
      child.on("exit", (code, signal) => {
        clearTimeout(timer);
        const wasRunning = this.host === child;
        if (wasRunning) this.host = null;
        if (!wasRunning) reject(new Error(`python host exited before ready (${code ?? signal}): ${lastLines(this.hostStderr)}`));
        this.failAllPending(`python host exited (${code ?? signal}): ${lastLines(this.hostStderr)}`);
      });
    });
  }

  /** Stops the host; it kills any solve it still runs when its stdin closes. */
  async stopHost(): Promise<void> {
    this.wanted = false;
    const host = this.host;
    if (!host) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => host.kill("SIGKILL"), 3000);
      host.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      host.stdin.end();
    });
  }

  /** scip and highs as this Python environment has them. Never rejects. */
  probe(): Promise<Record<PythonSolverName, ProbeResult>> {
    if (this.hostProbe) return Promise.resolve(this.hostProbe);
    this.probeCache ??= (async () => {
      const out = await runChild({ command: this.pythonPath, args: [this.runnerPath, "--probe"], cwd: path.dirname(this.runnerPath), deadlineMs: 30_000 });
      try {
        return JSON.parse(out.stdout.trim().split("\n").pop() ?? "") as Record<PythonSolverName, ProbeResult>;
      } catch {
        const why = out.spawnError ?? (lastLines(out.stderr) || `exit ${out.exitCode ?? out.exitSignal}`);
        const missing: ProbeResult = { available: false, version: null, detail: `python solvers not available (${this.pythonPath}): ${why}` };
        return { scip: missing, highs: missing };
      }
    })();
    return this.probeCache;
  }

  /**
   * Runs one solve on the host when it is up (starting it again if it died since startHost), else as a
   * one-shot process. Never rejects.
   */
  async run(request: PythonSolveRequest, options: PythonRunOptions): Promise<PythonRunOutcome> {
    const id = `s${process.pid}-${this.nextId++}`;
    const resultPath = path.join(options.workDir, `python-result-${id}.json`);
    const line = JSON.stringify({ op: "solve", id, result_path: resultPath, ...request });
    if (this.wanted && !this.host) await this.startHost().catch(() => undefined);
    return this.host ? this.runOnHost(this.host, { id, resultPath, line }, options) : this.runOnce(resultPath, line, options);
  }

  private runOnHost(
    host: ChildProcessWithoutNullStreams,
    { id, resultPath, line }: { id: string; resultPath: string; line: string },
    options: PythonRunOptions,
  ): Promise<PythonRunOutcome> {
    return new Promise((resolve) => {
      const entry: PendingSolve = {
        resultPath,
        pid: null,
        stopped: null,
        progress: noProgress(),
        options,
        timer: null,
        onAbort: () => this.stop(entry, "aborted"),
        resolve,
      };
      if (options.signal?.aborted) {
        resolve({ pid: null, result: null, stopped: "aborted", failure: null, progress: entry.progress, via: "host" });
        return;
      }
      this.pending.set(id, entry);
      if (options.deadlineMs !== null) entry.timer = setTimeout(() => this.stop(entry, "deadline"), options.deadlineMs);
      options.signal?.addEventListener("abort", entry.onAbort, { once: true });
      host.stdin.write(`${line}\n`);
    });
  }

  private stop(entry: PendingSolve, reason: StopReason): void {
    if (entry.stopped) return;
    entry.stopped = reason;
    if (entry.pid !== null) void killProcessGroup(entry.pid, entry.options.termGraceMs);
    else if (reason === "deadline") {
      // No "started" by the deadline: the host itself is stuck (a fork cannot take that long). It is
      // killed; its exit settles every pending solve, and the next solve starts a fresh host.
      this.host?.kill("SIGKILL");
    }
    // Aborted before "started": the kill happens when the pid arrives.
  }

  private onHostEvent(event: HostEvent): void {
    if (event.event === "ready" || event.id === null) return;
    const id = event.id;
    const entry = this.pending.get(id);
    if (!entry) return;
    if (event.event === "started") {
      entry.pid = event.pid;
      registerProcessGroup(event.pid, () => {
        this.stop(entry, "aborted");
        return killProcessGroup(event.pid, entry.options.termGraceMs);
      });
      if (entry.stopped) void killProcessGroup(event.pid, entry.options.termGraceMs);
    } else if (event.event === "progress") {
      entry.progress = { incumbent: event.incumbent, bound: event.bound, nodes: event.nodes };
      entry.options.onProgress?.(entry.progress);
    } else if (event.event === "log") {
      entry.options.onLog?.(event.text);
    } else if (event.event === "exited") {
      const how = event.signal !== null ? `killed by signal ${event.signal}` : `exit code ${event.code}`;
      void this.settle(id, event.code === 0 ? null : `python solve child ended: ${how}`);
    } else if (event.event === "error") {
      void this.settle(id, `python host refused the request: ${event.message}`);
    }
  }

  private async settle(id: string, failure: string | null): Promise<void> {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    if (entry.timer) clearTimeout(entry.timer);
    entry.options.signal?.removeEventListener("abort", entry.onAbort);
    // The child is gone; anything it started goes with its group.
    if (entry.pid !== null && processGroupAlive(entry.pid)) await killProcessGroup(entry.pid, 0);
    if (entry.pid !== null) forgetProcessGroup(entry.pid);
    const result = await readResult(entry.resultPath);
    entry.resolve({
      pid: entry.pid,
      result,
      stopped: entry.stopped,
      failure: result ? null : (failure ?? "python solve wrote no result"),
      progress: entry.progress,
      via: "host",
    });
  }

  private failAllPending(why: string): void {
    for (const [id, entry] of this.pending) {
      // A host that died cannot reap or kill its children: do it here.
      if (entry.pid !== null) void killProcessGroup(entry.pid, 0);
      void this.settle(id, why);
    }
  }

  private async runOnce(resultPath: string, line: string, options: PythonRunOptions): Promise<PythonRunOutcome> {
    let progress = noProgress();
    const outcome = await runChild({
      command: this.pythonPath,
      args: [this.runnerPath, "--once"],
      cwd: options.workDir,
      input: `${line}\n`,
      deadlineMs: options.deadlineMs,
      signal: options.signal,
      termGraceMs: options.termGraceMs,
      onLine: (text, stream) => {
        if (stream !== "stdout") return;
        try {
          const event = JSON.parse(text) as HostEvent;
          if (event.event === "progress") {
            progress = { incumbent: event.incumbent, bound: event.bound, nodes: event.nodes };
            options.onProgress?.(progress);
          } else if (event.event === "log") options.onLog?.(event.text);
        } catch {
          // not a protocol line
        }
      },
    });
    const result = await readResult(resultPath);
    const failure = result
      ? null
      : outcome.spawnError
        ? `python could not start (${this.pythonPath}): ${outcome.spawnError}`
        : `python solve ended (${outcome.exitCode ?? outcome.exitSignal}) without a result: ${lastLines(outcome.stderr)}`;
    return { pid: outcome.pid, result, stopped: outcome.stopped, failure, progress, via: "once" };
  }
}

async function readResult(resultPath: string): Promise<PythonResult | null> {
  try {
    return JSON.parse(await readFile(resultPath, "utf8")) as PythonResult;
  } catch {
    return null;
  }
}
