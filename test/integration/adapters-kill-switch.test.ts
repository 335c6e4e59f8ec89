import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../functions/core/config.js";
import { readMps } from "../../functions/core/problem/mps.js";
import { ProblemSchema } from "../../functions/core/problem/schema.js";
import { createTypeScriptEngineAdapter } from "../../solver-container/src/adapters/node-engine.js";
import { toMatrixForm } from "../../solver-container/src/adapters/matrix-form.js";
import { resolvePythonPath } from "../../solver-container/src/adapters/paths.js";
import { processGroupAlive, runChild } from "../../solver-container/src/adapters/process.js";
import { PythonRuntime } from "../../solver-container/src/adapters/python-host.js";
import { machineHas } from "../support/machine.js";
import { plainInstanceFile, readInstance } from "../support/manifest.js";

/**
 * The kill switch: a solver that ignores its time limit is stopped at limit + grace, with its whole
 * process group, and nothing of it is left running.
 */
/** glpsol reads the plain file. */
const gt2 = plainInstanceFile("gt2.mps");
let workDir: string;
beforeAll(() => {
  workDir = mkdtempSync(path.join(tmpdir(), "incumbent-kill-"));
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** Processes of group `pgid` that still run, per ps (zombies awaiting init's reaping run nothing). */
function runningMembers(pgid: number): string[] {
  let out = "";
  try {
    out = execFileSync("ps", ["-o", "pid=,stat=,comm=", "-g", String(pgid)], { encoding: "utf8" });
  } catch {
    // ps exits 1 when it lists nothing
  }
  return out
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !/^\d+\s+Z/.test(l));
}

describe.runIf(machineHas("glpsol"))("kill switch on a CLI solver", () => {
  it("kills glpsol on gt2 (no --tmlim: it would run far past 60 s) at 1 s + 1 s grace, and its group is gone", async () => {
    let lines = 0;
    const outcome = await runChild({ command: "glpsol", args: ["--freemps", gt2], cwd: workDir, deadlineMs: 2000, termGraceMs: 1000, onLine: () => lines++ });
    expect(outcome.stopped).toBe("deadline");
    expect(outcome.exitSignal).toBe("SIGTERM");
    expect(outcome.elapsedMs).toBeGreaterThanOrEqual(1900); // not before its deadline (how soon after: npm run bench -- latency)
    expect(lines).toBeGreaterThan(5); // it was streaming its log when it was stopped
    expect(processGroupAlive(outcome.pid!)).toBe(false);
    expect(runningMembers(outcome.pid!)).toEqual([]);
  });

  it("kills every process of the group, and SIGKILLs one that ignores SIGTERM", async () => {
    // A shell that ignores TERM, with two solvers under it.
    const script = `trap '' TERM; glpsol --freemps ${gt2} >/dev/null & glpsol --freemps ${gt2} >/dev/null & wait`;
    const outcome = await runChild({ command: "sh", args: ["-c", script], cwd: workDir, deadlineMs: 1000, termGraceMs: 500 });
    expect(outcome.stopped).toBe("deadline");
    expect(outcome.exitSignal).toBe("SIGKILL");
    expect(processGroupAlive(outcome.pid!)).toBe(false);
    expect(runningMembers(outcome.pid!)).toEqual([]);
  });

  it("cancels on an AbortSignal", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const outcome = await runChild({ command: "glpsol", args: ["--freemps", gt2], cwd: workDir, deadlineMs: 60_000, signal: controller.signal });
    expect(outcome.stopped).toBe("aborted");
    expect(processGroupAlive(outcome.pid!)).toBe(false);
  });
});

describe.runIf(machineHas("python_solvers"))("kill switch on the warm Python host", () => {
  const python = new PythonRuntime({ pythonPath: resolvePythonPath(loadConfig().pythonPath) });
  // dcmulti takes SCIP several seconds; a 60 s solver limit leaves the stopping to the kill switch.
  const model = (() => {
    const { colNames: _names, ...form } = toMatrixForm(readMps(readInstance("dcmulti.mps")));
    return form;
  })();
  const request = { solver: "scip" as const, model, settings: { time_limit: 60, gap: 0, threads: 1 } };
  beforeAll(() => python.startHost());
  afterAll(() => python.stopHost());

  it("kills exactly the forked solve at its deadline, keeps the incumbent and bound it streamed, and the host serves on", async () => {
    const seen: number[] = [];
    const outcome = await python.run(request, {
      workDir,
      deadlineMs: 1500,
      termGraceMs: 500,
      onProgress: (p) => p.incumbent !== null && seen.push(p.incumbent),
    });
    expect(outcome.via).toBe("host");
    expect(outcome.stopped).toBe("deadline");
    expect(outcome.result).toBeNull();
    expect(outcome.progress.incumbent).not.toBeNull();
    expect(outcome.progress.bound).not.toBeNull();
    expect(outcome.progress.bound!).toBeLessThanOrEqual(outcome.progress.incumbent!);
    expect(seen.length).toBeGreaterThan(0);
    expect(processGroupAlive(outcome.pid!)).toBe(false);
    expect(python.hostRunning).toBe(true);

    const next = await python.run({ ...request, settings: { ...request.settings, time_limit: 0.5 } }, { workDir, deadlineMs: 5000 });
    expect(next.result?.solver_status).toBe("time_limit");
  });

  it("cancels a forked solve on an AbortSignal", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 400);
    const outcome = await python.run(request, { workDir, deadlineMs: 60_000, signal: controller.signal });
    expect(outcome.stopped).toBe("aborted");
    expect(outcome.result).toBeNull();
    expect(processGroupAlive(outcome.pid!)).toBe(false);
    expect(python.hostRunning).toBe(true);
  });
});

describe("kill switch on a TypeScript engine in a Node child (how jaos runs)", () => {
  it("stops an engine that blocks its thread, with the progress it reported, and nothing left running", async () => {
    const adapter = createTypeScriptEngineAdapter("jaos", "stubborn", {
      modulePath: path.join(import.meta.dirname, "../fixtures/engines/stubborn-engine.ts"),
      exportName: "stubbornEngine",
    });
    expect(await adapter.probe()).toEqual({ available: true, version: "stubborn 0.0.1" });
    const problem = ProblemSchema.parse({ variables: [{ name: "x" }] });
    // 4 s: the child loads the engine through tsx first, which on a busy machine takes seconds; the
    // progress it reports before blocking must be in before the kill switch fires.
    const r = await adapter.solve(problem, { timeLimitSeconds: 4, gapTolerance: 0, threads: 1 }, { workDir, killGraceSeconds: 1 });
    expect(r).toMatchObject({ solver_status: "time_limit", objective_value: 42, dual_bound: 40, nodes: 7, solver_version: "stubborn 0.0.1" });
    expect(r.error_message).toMatch(/kill switch/);
    // No Node child of ours is left running (other test files run their own, under other parents).
    const processes = execFileSync("ps", ["-eo", "ppid=,stat=,args="], { encoding: "utf8" }).split("\n");
    const ours = processes
      .map((l) => l.trim().split(/\s+/))
      .filter(([ppid, stat, ...args]) => Number(ppid) === process.pid && !stat!.startsWith("Z") && args.join(" ").includes("node-child"));
    expect(ours).toEqual([]);
  });
});
