import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/**
 * The kill switch. Every solve runs in a child process that leads its own process group, so one
 * signal reaches the solver and anything it started. At the deadline (time limit + grace) or on abort
 * the group gets SIGTERM, and SIGKILL if anything in it is still alive `termGraceMs` later. After the
 * child exits by itself the group is swept too, so no helper process outlives a solve.
 */

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

    const child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: true, // own process group: pgid = child.pid
      stdio: ["pipe", "pipe", "pipe"],
    });
    const pid = child.pid ?? null;

    const stop = (reason: StopReason) => {
      if (stopped !== null || pid === null || settled) return;
      stopped = reason;
      killing = killProcessGroup(pid, termGraceMs);
    };
    const timer = options.deadlineMs === null ? null : setTimeout(() => stop("deadline"), Math.max(0, options.deadlineMs));
    const onAbort = () => stop("aborted");
    options.signal?.addEventListener("abort", onAbort, { once: true });

    const outLines = lineSplitter((line) => options.onLine?.(line, "stdout"));
    const errLines = lineSplitter((line) => options.onLine?.(line, "stderr"));
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      stdout.append(chunk);
      outLines.push(chunk);
    });
    child.stderr.on("data", (chunk: string) => {
      stderr.append(chunk);
      errLines.push(chunk);
    });
    child.stdin.on("error", () => {
      // EPIPE when the child exits before reading its input: its exit status tells the story.
    });
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();

    const finish = async (exitCode: number | null, exitSignal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      // Sweep the group: a solver's helper processes must not outlive the solve.
      if (pid !== null) await (killing ?? killProcessGroup(pid, 0));
      outLines.flush();
      errLines.flush();
      resolve({
        pid,
        exitCode,
        exitSignal,
        stopped,
        spawnError,
        stdout: stdout.toString(),
        stderr: stderr.toString(),
        elapsedMs: Date.now() - started,
      });
    };

    child.on("error", (err) => {
      spawnError = err.message;
      void finish(null, null);
    });
    child.on("close", (code, sig) => void finish(code, sig));
  });
}
