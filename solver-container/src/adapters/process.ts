import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";

/**
 * The kill switch. Every solve runs in a child process that leads its own process group, so one
 * signal reaches the solver and anything it started. At the deadline (time limit + grace) or on abort
 * the group gets SIGTERM, and SIGKILL if anything in it is still alive `termGraceMs` later. After the
 * child exits by itself the group is swept too, so no helper process outlives a solve.
 *
 * Every group started here is in a registry until it is gone, so a worker that is stopped (SIGTERM,
 * a lost lease) can stop them all (`stopAllProcessGroups`). Solver children get a stripped environment
 * (`solverEnvironment`): no cloud credentials reach a solver, and a memory ceiling (`memoryMb`).
 */

/**
 * The process groups of solves now running (CLI solvers, Node children, the Python host's solves), each
 * with how to stop it as a cancellation, so its solve answers "cancelled" rather than a crash.
 */
const liveGroups = new Map<number, () => Promise<void>>();

export function registerProcessGroup(pgid: number, stop: () => Promise<void>): void {
  liveGroups.set(pgid, stop);
}

export function forgetProcessGroup(pgid: number): void {
  liveGroups.delete(pgid);
}

export function liveProcessGroups(): number[] {
  return [...liveGroups.keys()];
}

/** Stops every registered group (SIGTERM, then SIGKILL), all at once; resolves when they are gone. */
export async function stopAllProcessGroups(): Promise<void> {
  await Promise.all(
    [...liveGroups].map(async ([pgid, stop]) => {
      await stop();
      liveGroups.delete(pgid);
    }),
  );
}

/**
 * What a solver child may see of the worker's environment: the search path, a home and temporary
 * directory, the locale and time zone, and the Python venv and thread settings the solvers read.
 * Nothing else — above all no AWS credentials or the container-credentials endpoint
 * (AWS_*, ECS_CONTAINER_METADATA_URI*, AWS_CONTAINER_CREDENTIALS_*), which a model cannot need.
 */
export function solverEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const kept: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && SOLVER_ENVIRONMENT.test(name)) kept[name] = value;
  }
  return kept;
}

const SOLVER_ENVIRONMENT =
  /^(?:PATH|HOME|TMPDIR|TMP|TEMP|LANG|LANGUAGE|LC_[A-Z]+|TZ|VIRTUAL_ENV|PYTHONHOME|PYTHONPATH|OMP_NUM_THREADS|OPENBLAS_NUM_THREADS|MKL_NUM_THREADS)$/;

/**
 * The command line that runs `command` under a data-segment ceiling (RLIMIT_DATA: heap and anonymous
 * memory) of `memoryMb`, through the shell's ulimit and exec (same process, same group). Without a
 * ceiling, the command as is.
 */
export function withMemoryCeiling(command: string, args: readonly string[], memoryMb: number | undefined): { command: string; args: string[] } {
  if (!memoryMb || memoryMb <= 0) return { command, args: [...args] };
  return { command: "/bin/sh", args: ["-c", `ulimit -d ${Math.ceil(memoryMb * 1024)} && exec "$0" "$@"`, command, ...args] };
}

/** Did a child stop because it ran out of memory? Its own words, or a SIGKILL nobody here sent (the kernel's OOM killer). */
export function ranOutOfMemory(outcome: Pick<ChildRunOutcome, "stdout" | "stderr" | "exitSignal" | "stopped">): boolean {
  if (
    /std::bad_alloc|no memory available|memory allocation limit exceeded|heap out of memory|MemoryError|insufficient memory|Cannot allocate memory/i.test(
      `${outcome.stderr}\n${outcome.stdout.slice(-4096)}`,
    )
  )
    return true;
  return outcome.exitSignal === "SIGKILL" && outcome.stopped === null;
}

/**
 * The command line that runs `command` with its standard output line-buffered (coreutils' stdbuf),
 * so a CLI solver's progress lines arrive as it prints them, not in blocks of 4 KiB at the end; as
 * is where stdbuf is missing (progress then arrives late, the result is the same).
 */
export function lineBuffered(command: string, args: readonly string[]): { command: string; args: string[] } {
  STDBUF ??= ["/usr/bin/stdbuf", "/bin/stdbuf"].find((p) => existsSync(p)) ?? "";
  return STDBUF ? { command: STDBUF, args: ["-oL", command, ...args] } : { command, args: [...args] };
}
let STDBUF: string | undefined;

export type StopReason = "deadline" | "aborted";

export interface ChildRunOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Written to the child's stdin, which is then closed. */
  input?: string;
  /** Milliseconds after start at which the group is killed; null = never (the caller's signal still can). */
  deadlineMs: number | null;
  signal?: AbortSignal;
  /** Called for each complete line the child writes, as it streams (for progress parsing). */
  onLine?: (line: string, stream: "stdout" | "stderr") => void;
  /** Time between SIGTERM and SIGKILL. */
  termGraceMs?: number;
  /** Data-segment ceiling of the child in MB (see withMemoryCeiling); none when absent or 0. */
  memoryMb?: number;
  /**
   * A child started ahead (detached, all three stdio piped, still running) to run instead of spawning
   * `command` now; the deadline counts from this call.
   */
  spawned?: ChildProcessWithoutNullStreams;
  /**
   * For a child that serves several requests (node-child.ts `--standby`): `input` is written as one line
   * and stdin stays open; the run ends when a stdout line satisfies `isDone`, and the child comes back
   * alive in `kept`, with this run's listeners removed and out of the registry (its owner stops it). A
   * stop or an exit before that line ends the run as for any child.
   */
  keepAlive?: { isDone: (line: string) => boolean };
}

export interface ChildRunOutcome {
  pid: number | null;
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  /** Set when the kill switch stopped the child. */
  stopped: StopReason | null;
  /** The child could not be started at all (e.g. ENOENT). */
  spawnError: string | null;
  stdout: string;
  stderr: string;
  elapsedMs: number;
  /** With `keepAlive`: the child, still running, when it printed its done line. */
  kept?: ChildProcessWithoutNullStreams;
}

const DEFAULT_TERM_GRACE_MS = 1000;

/**
 * True while any process of group `pgid` is still running. A killed grandchild is reparented to init
 * and stays a zombie until init reaps it (slowly, under some container inits); a zombie runs nothing
 * and holds nothing but its pid, so on Linux it does not count as alive.
 */
export function processGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    // ESRCH: no such group. (EPERM would mean a group of another user, which cannot be one of ours.)
    return false;
  }
  return hasRunningMember(pgid);
}

function hasRunningMember(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true; // no /proc: the group exists, take it as alive
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so split after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z") return true;
  }
  return false;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * SIGTERM to the group, then SIGKILL once `termGraceMs` passed with anything still alive. Resolves when
 * the group is gone (or after the SIGKILL had a moment to land).
 */
export async function killProcessGroup(pgid: number, termGraceMs = DEFAULT_TERM_GRACE_MS): Promise<void> {
  if (!processGroupAlive(pgid)) return;
  signalGroup(pgid, "SIGTERM");
  const termDeadline = Date.now() + termGraceMs;
  while (Date.now() < termDeadline) {
    await sleep(20);
    if (!processGroupAlive(pgid)) return;
  }
  signalGroup(pgid, "SIGKILL");
  for (let i = 0; i < 100 && processGroupAlive(pgid); i++) await sleep(10);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Keeps the beginning and the end of a stream (solver banners sit at the start, summaries at the end)
 * without holding a multi-megabyte log of a long search in memory.
 */
export class BoundedText {
  private head = "";
  private tail = "";
  private dropped = 0;

  constructor(
    private readonly headMax = 256 * 1024,
    private readonly tailMax = 1024 * 1024,
  ) {}

  append(chunk: string): void {
    if (this.head.length < this.headMax) {
      const room = this.headMax - this.head.length;
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    if (chunk.length === 0) return;
    this.tail += chunk;
    if (this.tail.length > this.tailMax * 2) {
      const cut = this.tail.length - this.tailMax;
      this.dropped += cut;
      this.tail = this.tail.slice(cut);
    }
  }

  toString(): string {
    return this.dropped > 0 ? `${this.head}\n[... ${this.dropped} characters dropped ...]\n${this.tail}` : this.head + this.tail;
  }
}

/** Splits a byte stream into lines for `onLine`, holding a partial last line until it completes. */
function lineSplitter(emit: (line: string) => void): { push(chunk: string): void; flush(): void } {
  let pending = "";
  return {
    push(chunk) {
      pending += chunk;
      let nl = pending.indexOf("\n");
      while (nl >= 0) {
        emit(pending.slice(0, nl).replace(/\r$/, ""));
        pending = pending.slice(nl + 1);
        nl = pending.indexOf("\n");
      }
    },
    flush() {
      if (pending.length > 0) emit(pending);
      pending = "";
    },
  };
}

/** Runs one child in its own process group under the kill switch. Never rejects. */
export function runChild(options: ChildRunOptions): Promise<ChildRunOutcome> {
  const started = Date.now();
  const termGraceMs = options.termGraceMs ?? DEFAULT_TERM_GRACE_MS;
  return new Promise((resolve) => {
    const stdout = new BoundedText();
    const stderr = new BoundedText();
    let stopped: StopReason | null = null;
    let spawnError: string | null = null;
    let settled = false;
    let killing: Promise<void> | null = null;

    if (options.signal?.aborted) {
      resolve({ pid: null, exitCode: null, exitSignal: null, stopped: "aborted", spawnError: null, stdout: "", stderr: "", elapsedMs: 0 });
      return;
    }

    const launch = withMemoryCeiling(options.command, options.args, options.memoryMb);
    const child =
      options.spawned ??
      spawn(launch.command, launch.args, {
        cwd: options.cwd,
        env: options.env ?? solverEnvironment(),
        detached: true, // own process group: pgid = child.pid
        stdio: ["pipe", "pipe", "pipe"],
      });
    const pid = child.pid ?? null;

    const stop = (reason: StopReason) => {
      if (stopped !== null || pid === null || settled) return;
      stopped = reason;
      killing = killProcessGroup(pid, termGraceMs);
    };
    if (pid !== null) {
      registerProcessGroup(pid, () => {
        stop("aborted");
        return killing ?? Promise.resolve();
      });
    }
    const timer = options.deadlineMs === null ? null : setTimeout(() => stop("deadline"), Math.max(0, options.deadlineMs));
    const onAbort = () => stop("aborted");
    options.signal?.addEventListener("abort", onAbort, { once: true });

    let done = false;
    const outLines = lineSplitter((line) => {
      options.onLine?.(line, "stdout");
      if (options.keepAlive?.isDone(line)) done = true;
    });
    const errLines = lineSplitter((line) => options.onLine?.(line, "stderr"));
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    const onStdout = (chunk: string) => {
      stdout.append(chunk);
      outLines.push(chunk);
      if (done) keep();
    };
    const onStderr = (chunk: string) => {
      stderr.append(chunk);
      errLines.push(chunk);
    };
    const onStdinError = () => {
      // EPIPE when the child exits before reading its input: its exit status tells the story.
    };
    child.stdout.on("data", onStdout);
    child.stderr.on("data", onStderr);
    child.stdin.on("error", onStdinError);
    if (options.keepAlive) child.stdin.write(`${options.input ?? ""}\n`);
    else if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();

    // This run ends once, by whichever comes first (exit, spawn error, or a kept child's done line):
    // the deadline and the abort listener go, and the outcome carries the output so far.
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      return true;
    };
    const outcome = (ending: Pick<ChildRunOutcome, "exitCode" | "exitSignal" | "stopped" | "spawnError" | "kept">): ChildRunOutcome => ({
      pid,
      ...ending,
      stdout: stdout.toString(),
      stderr: stderr.toString(),
      elapsedMs: Date.now() - started,
    });

    const finish = async (exitCode: number | null, exitSignal: NodeJS.Signals | null) => {
      if (!settle()) return;
      // Sweep the group: a solver's helper processes must not outlive the solve.
      if (pid !== null) {
        await (killing ?? killProcessGroup(pid, 0));
        forgetProcessGroup(pid);
      }
      outLines.flush();
      errLines.flush();
      resolve(outcome({ exitCode, exitSignal, stopped, spawnError }));
    };

    const onError = (err: Error) => {
      spawnError = err.message;
      void finish(null, null);
    };
    const onClose = (code: number | null, sig: NodeJS.Signals | null) => void finish(code, sig);
    child.on("error", onError);
    child.on("close", onClose);

    // The done line of a child that serves several requests: this run ends, the child lives on.
    function keep(): void {
      if (stopped !== null || !settle()) return;
      if (pid !== null) forgetProcessGroup(pid);
      child.stdout.off("data", onStdout);
      child.stderr.off("data", onStderr);
      child.stdin.off("error", onStdinError);
      child.off("error", onError);
      child.off("close", onClose);
      errLines.flush();
      resolve(outcome({ exitCode: null, exitSignal: null, stopped: null, spawnError: null, kept: child }));
    }
  });
}
