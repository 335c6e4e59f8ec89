import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../support/machine.js";

/**
 * The solver container, short of Docker: the worker compiled by the image's own build step
 * (`node --import tsx solver-container/build.ts solver-container/dist`) from the build context the
 * cloud assembly staged, laid out as the runtime stage copies it (/app: package.json, node_modules,
 * solver-container/dist, solver-container/python), and started with the task definition's command.
 * node_modules is this checkout's (the image's are `npm ci --omit=dev` of the same lock file); the
 * solvers are this machine's (the image's come from Debian and pip).
 */
export function buildWorkerImage(contextDir: string, appDir: string): void {
  mkdirSync(path.join(appDir, "solver-container"), { recursive: true });
  execFileSync(process.execPath, ["--import", "tsx", path.join(contextDir, "solver-container/build.ts"), path.join(appDir, "solver-container/dist")], {
    cwd: REPO_ROOT,
    stdio: "pipe",
  });
  cpSync(path.join(contextDir, "package.json"), path.join(appDir, "package.json"));
  cpSync(path.join(contextDir, "solver-container/python"), path.join(appDir, "solver-container/python"), { recursive: true });
  if (!existsSync(path.join(appDir, "node_modules"))) symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(appDir, "node_modules"), "dir");
}

export class WorkerProcess {
  readonly child: ChildProcess;
  private output = "";
  readonly ready: Promise<void>;

  constructor(appDir: string, command: string[], environment: Record<string, string>) {
    const [program, ...args] = command;
    if (program !== "node") throw new Error(`the task's command starts with ${program}, not node`);
    // --announce-ready only adds a line on stdout once the worker polls; the loop is the task's.
    this.child = spawn(process.execPath, [...args, "--announce-ready"], {
      cwd: appDir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...environment },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.ready = new Promise((resolve, reject) => {
      this.child.stdout!.on("data", (d: Buffer) => {
        this.output += d;
        if (this.output.includes('{"event":"ready"')) resolve();
      });
      this.child.stderr!.on("data", (d: Buffer) => (this.output += d));
      this.child.on("exit", (code, signal) => reject(new Error(`worker exited (${signal ?? code}) before it was ready:\n${this.output}`)));
    });
    this.ready.catch(() => undefined);
  }

  logs(): string {
    return this.output;
  }

  /** The whole task dies at once, as when Fargate loses it: the worker and every process it started. */
  killTask(): void {
    const pids = descendants(this.child.pid!);
    this.child.kill("SIGKILL");
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.killTask(), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

function descendants(pid: number): number[] {
  let out = "";
  try {
    out = execFileSync("ps", ["-e", "-o", "pid=,ppid="], { encoding: "utf8" });
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const line of out.trim().split("\n")) {
    const [p, pp] = line.trim().split(/\s+/).map(Number);
    if (!children.has(pp!)) children.set(pp!, []);
    children.get(pp!)!.push(p!);
  }
  const found: number[] = [];
  const visit = (p: number) => {
    for (const c of children.get(p) ?? []) {
      found.push(c);
      visit(c);
    }
  };
  visit(pid);
  return found;
}
