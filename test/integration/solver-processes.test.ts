import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../functions/core/config.js";
import { ProblemSchema } from "../../functions/core/problem/schema.js";
import type { SolveSettings } from "../../functions/core/solvers/types.js";
import { resolvePythonPath } from "../../solver-container/src/adapters/paths.js";
import { liveProcessGroups, processGroupAlive, runChild } from "../../solver-container/src/adapters/process.js";
import { PythonRuntime } from "../../solver-container/src/adapters/python-host.js";
import { createSolverToolkit } from "../../solver-container/src/solver-toolkit.js";
import { machineHas } from "../support/machine.js";
import { marketSplitProblem } from "../support/models.js";

/**
 * Solver processes under the worker's control: no cloud credentials in a solver's environment, every
 * process group stoppable at once, and a Python host that cannot hang a solve past its deadline. (A
 * solve over its memory ceiling: test/faults/memory-ceiling.test.ts.)
 */
const enabled = machineHas("cbc", "glpsol", "python_solvers");
const pythonPath = resolvePythonPath(loadConfig().pythonPath);
const settings = (overrides: Partial<SolveSettings> = {}): SolveSettings => ({ timeLimitSeconds: 60, gapTolerance: 1e-4, threads: 1, ...overrides });
const fixture = (...parts: string[]) => path.join(import.meta.dirname, "../fixtures", ...parts);
let workDir: string;
beforeAll(() => {
  workDir = mkdtempSync(path.join(tmpdir(), "incumbent-processes-"));
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** The environment of a running process, from /proc. */
function environmentOf(pid: number): Record<string, string> {
  return Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, "utf8")
      .split("\0")
      .filter((e) => e.includes("="))
      .map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]),
  );
}

const SECRETS = {
  AWS_ACCESS_KEY_ID: "AKIAEXAMPLEEXAMPLE",
  AWS_SECRET_ACCESS_KEY: "secret-that-no-solver-may-see",
  AWS_SESSION_TOKEN: "session-token",
  AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: "/v2/credentials/some-id",
  AWS_CONTAINER_CREDENTIALS_FULL_URI: "http://169.254.170.2/creds",
  ECS_CONTAINER_METADATA_URI_V4: "http://169.254.170.2/v4/meta",
  ECS_CONTAINER_METADATA_URI: "http://169.254.170.2/v3/meta",
};
const leaked = (env: Record<string, string>) => Object.keys(env).filter((name) => /^(?:AWS_|ECS_CONTAINER_METADATA_URI)/.test(name));

describe.runIf(enabled)("toolkit.close() and the solvers' environment", () => {
  const saved: Record<string, string | undefined> = {};
  beforeAll(() => {
    for (const [name, value] of Object.entries(SECRETS)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
  });
  afterAll(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it("a CLI child sees PATH and HOME, and none of the worker's AWS or container-credentials variables", async () => {
    const out = await runChild({ command: "/bin/sh", args: ["-c", "env"], cwd: workDir, deadlineMs: 5000 });
    const env = Object.fromEntries(
      out.stdout
        .trim()
        .split("\n")
        .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
    );
    expect(env.PATH).toBe(process.env.PATH);
    expect(leaked(env)).toEqual([]);
    expect(out.stdout).not.toContain(SECRETS.AWS_SECRET_ACCESS_KEY);
  });

  it("stops every solver process group it started — CLI solvers, a Node child, the Python host and its solves — and none saw a credential", async () => {
    const toolkit = await createSolverToolkit(loadConfig({}), { warm: true });
    const hard = ProblemSchema.parse(marketSplitProblem(6, 50, 7)); // no solver here closes it in a minute
    const long = settings({ timeLimitSeconds: 120, gapTolerance: 0 });
    const solves = (["cbc", "glpk", "scip", "highs", "jaos"] as const).map((name) =>
      toolkit.solve(name, { problem: hard, settings: long, killGraceSeconds: 5 }),
    );
    // A generous wait for all five to start (seconds each on a loaded machine).
    for (let i = 0; i < 900 && liveProcessGroups().length < 5; i++) await new Promise((r) => setTimeout(r, 100));
    const groups = liveProcessGroups();
    expect(groups).toHaveLength(5);
    for (const pgid of groups) expect(leaked(environmentOf(pgid))).toEqual([]);

    await toolkit.close();
    const results = await Promise.all(solves);
    expect(liveProcessGroups()).toEqual([]);
    for (const pgid of groups) expect(processGroupAlive(pgid)).toBe(false);
    for (const r of results) expect(r).toMatchObject({ solver_status: "error", error_message: "cancelled" });
  }, 180_000);

  it("the Python host runs without them too", async () => {
    const python = new PythonRuntime({ pythonPath });
    await python.startHost();
    try {
      expect(leaked(environmentOf(python.hostPid!))).toEqual([]);
    } finally {
      await python.stopHost();
    }
  });
});

describe.runIf(machineHas("python_solvers"))("the Python host's deadline", () => {
  it("kills a host that never reports a solve started, at the deadline, and starts a new one for the next solve", async () => {
    const python = new PythonRuntime({ pythonPath, runnerPath: fixture("python/hung_host.py") });
    await python.startHost();
    const first = python.hostPid!;
    const request = { solver: "scip" as const, model: { ...toMatrixLike() }, settings: { time_limit: 1, gap: 0, threads: 1 } };
    const outcome = await python.run(request, { workDir, deadlineMs: 500 });
    expect(outcome).toMatchObject({ stopped: "deadline", result: null, via: "host" });
    expect(isRunning(first)).toBe(false);

    const again = await python.run(request, { workDir, deadlineMs: 500 });
    expect(again.stopped).toBe("deadline");
    expect(python.hostPid).not.toBe(first);
    await python.stopHost();
  });
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A request model the hung host never reads. */
function toMatrixLike() {
  return {
    name: "p",
    sense: "minimize" as const,
    offset: 0,
    numCols: 1,
    numRows: 0,
    colCost: [1],
    colLower: [0],
    colUpper: [null],
    integrality: [0 as const],
    rowLower: [],
    rowUpper: [],
    rowStarts: [0],
    rowIndices: [],
    rowValues: [],
    qRow: [],
    qCol: [],
    qValues: [],
  };
}
