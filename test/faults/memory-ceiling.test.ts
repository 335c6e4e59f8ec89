import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../functions/core/config.js";
import { readMps } from "../../functions/core/problem/mps.js";
import { type Problem, ProblemSchema } from "../../functions/core/problem/schema.js";
import type { SolveSettings } from "../../functions/core/solvers/types.js";
import { type AdapterRegistry, createAdapters } from "../../solver-container/src/adapters/index.js";
import { createTypeScriptEngineAdapter } from "../../solver-container/src/adapters/node-engine.js";
import { resolvePythonPath } from "../../solver-container/src/adapters/paths.js";
import { PythonRuntime } from "../../solver-container/src/adapters/python-host.js";
import { createSolverToolkit } from "../../solver-container/src/solver-toolkit.js";
import { machineHas } from "../support/machine.js";
import { readInstance } from "../support/manifest.js";
import { isFinal, pollUntil } from "../support/poll.js";
import { startTestStack } from "../support/test-stack.js";

/**
 * A solve over its memory ceiling (SOLVER_MEMORY_MB) gets an honest answer — `error` naming memory,
 * never a crashed worker — and whatever runs it takes the next solve: each adapter, the toolkit, and
 * a worker of the local stack taking the next job from the queue.
 */
const enabled = machineHas("cbc", "glpsol", "python_solvers");
const pythonPath = resolvePythonPath(loadConfig().pythonPath);
const settings = (overrides: Partial<SolveSettings> = {}): SolveSettings => ({ timeLimitSeconds: 60, gapTolerance: 1e-4, threads: 1, ...overrides });
const fixture = (...parts: string[]) => path.join(import.meta.dirname, "../fixtures", ...parts);
/** pilot87 (2030 rows, 4883 columns): ~20 MB for CBC and glpsol, more than 12 MB beyond its start for SCIP and HiGHS. */
const big = (): Problem => readMps(readInstance("scale/pilot87.mps"));
const small = ProblemSchema.parse({
  sense: "maximize",
  variables: [
    { name: "x", type: "integer", ub: 10 },
    { name: "y", type: "binary" },
  ],
  objective: {
    terms: [
      { var: "x", coef: 3 },
      { var: "y", coef: 2 },
    ],
  },
  constraints: [
    {
      name: "cap",
      terms: [
        { var: "x", coef: 2 },
        { var: "y", coef: 3 },
      ],
      ub: 11,
    },
  ],
});

let workDir: string;
beforeAll(() => {
  workDir = mkdtempSync(path.join(tmpdir(), "incumbent-memory-"));
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));
const dir = () => mkdtempSync(path.join(workDir, "solve-"));

describe.runIf(enabled)("a solve over its memory ceiling", () => {
  const python = new PythonRuntime({ pythonPath });
  let adapters: AdapterRegistry;
  beforeAll(async () => {
    await python.startHost();
    adapters = createAdapters({ python });
  });
  afterAll(() => python.stopHost());

  // The Python solves start from the warm host's ~60 MB of data; CLI solvers from next to nothing.
  it.each([
    ["cbc", 12, "CBC"],
    ["glpk", 8, "glpsol"],
    ["scip", 70, "SCIP"],
    ["highs", 70, "HiGHS"],
  ] as const)("%s with a ceiling of %i MB answers error naming memory, and its next solve runs", async (name, memoryMb, title) => {
    const r = await adapters.get(name)!.solve(big(), settings(), { workDir: dir(), killGraceSeconds: 5, memoryMb });
    expect(r).toMatchObject({ solver_status: "error", objective_value: null });
    expect(r.error_message).toBe(`memory limit: ${title} needed more than its memory ceiling of ${memoryMb} MB (SOLVER_MEMORY_MB)`);
    const next = await adapters.get(name)!.solve(small, settings(), { workDir: dir(), killGraceSeconds: 5, memoryMb });
    expect(next).toMatchObject({ solver_status: "optimal", objective_value: 15 });
  });

  it.each([
    ["heap", "the V8 heap (--max-old-space-size)"],
    ["arrays", "typed arrays outside the heap (the data ceiling)"],
  ])("a TypeScript engine in a Node child filling %s answers error naming memory", async (mode) => {
    const greedy = createTypeScriptEngineAdapter("jaos", "greedy", { modulePath: fixture("engines/greedy-engine.ts"), exportName: "greedyEngine" });
    const r = await greedy.solve(ProblemSchema.parse({ name: mode, variables: [{ name: "x" }] }), settings({ timeLimitSeconds: 30 }), {
      workDir: dir(),
      killGraceSeconds: 5,
      memoryMb: 64,
    });
    expect(r).toMatchObject({ solver_status: "error", error_message: "memory limit: greedy needed more than its memory ceiling of 64 MB (SOLVER_MEMORY_MB)" });
  });

  it("through the toolkit, SOLVER_MEMORY_MB reaches the solve, and the worker's next job solves", async () => {
    const toolkit = await createSolverToolkit({ ...loadConfig({}), solverMemoryMb: 12 }, { warm: false });
    try {
      const r = await toolkit.solve("cbc", { problem: big(), settings: settings(), killGraceSeconds: 5 });
      expect(r.error_message).toMatch(/^memory limit: CBC needed more than its memory ceiling of 12 MB/);
      expect(await toolkit.solve("glpk", { problem: small, settings: settings(), killGraceSeconds: 5 })).toMatchObject({
        solver_status: "optimal",
        objective_value: 15,
      });
    } finally {
      await toolkit.close();
    }
  });
});

describe.runIf(enabled)("a job over its memory ceiling on a worker of the fleet", () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  beforeAll(async () => {
    stack = await startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", LOCAL_WORKERS: "1", SOLVER_MEMORY_MB: "12" } });
  });
  afterAll(() => stack?.stop());

  it("the execution ends failed with error naming memory, the same worker process stays up and solves the next job", async () => {
    const [pid] = stack.workers.pids();
    const heavy = await stack.api.post("/api/v2/solve/async", { problem: big(), solver_name: "cbc" });
    expect(heavy.status, heavy.text).toBe(202);
    const failed = await pollUntil(stack.api, `/api/v2/models/executions/${heavy.body.execution_id}`, isFinal, { timeoutMs: 90_000 });
    expect(failed).toMatchObject({ status: "failed", result: { solver_status: "error" } });
    expect(failed.error_message).toMatch(/^memory limit: CBC needed more than its memory ceiling of 12 MB/);

    const next = await stack.api.post("/api/v2/solve/async", { problem: small, solver_name: "glpk" });
    const done = await pollUntil(stack.api, `/api/v2/models/executions/${next.body.execution_id}`, isFinal, { timeoutMs: 60_000 });
    expect(done).toMatchObject({ status: "completed", result: { solver_status: "optimal", objective_value: 15 } });
    expect(stack.workers.pids()).toEqual([pid]); // not crashed, not replaced
  }, 180_000);
});
