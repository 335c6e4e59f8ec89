import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../functions/core/config.js";
import { ProblemSchema } from "../../functions/core/problem/schema.js";
import type { SolveSettings } from "../../functions/core/solvers/types.js";
import { highsWasmEngine } from "../../solver-container/src/adapters/highs-wasm.js";
import { createAdapters, type AdapterRegistry } from "../../solver-container/src/adapters/index.js";
import { jaosEngine } from "../../solver-container/src/adapters/jaos.js";
import { resolvePythonPath } from "../../solver-container/src/adapters/paths.js";
import { PythonRuntime } from "../../solver-container/src/adapters/python-host.js";
import { machineHas } from "../support/machine.js";
import { judge, type JudgedResult, type VerdictCase } from "../support/verdict-cases.js";

/**
 * Problems on which a solver once answered wrong (or crashed), each found by the generated verdict
 * suite or the issue that started it, pinned with its known verdict: every solver must now give it.
 * The title names the solver behaviour each one caught.
 */
type Pinned = Pick<VerdictCase, "expected" | "reference" | "problem"> & { title: string };
const CASES = JSON.parse(readFileSync(path.join(import.meta.dirname, "../fixtures/verdict-regressions.json"), "utf8")) as Pinned[];
const SETTINGS: SolveSettings = { timeLimitSeconds: 20, gapTolerance: 1e-9, threads: 1 };

describe.runIf(machineHas("cbc", "glpsol", "python_solvers"))("verdicts the generated suite once caught wrong", () => {
  const python = new PythonRuntime({ pythonPath: resolvePythonPath(loadConfig().pythonPath) });
  let adapters: AdapterRegistry;
  let workDir: string;
  beforeAll(async () => {
    workDir = mkdtempSync(path.join(tmpdir(), "incumbent-pinned-"));
    await python.startHost();
    adapters = createAdapters({ python });
  });
  afterAll(async () => {
    await python.stopHost();
    rmSync(workDir, { recursive: true, force: true });
  });

  const solvers: Record<string, (problem: ReturnType<typeof ProblemSchema.parse>) => Promise<JudgedResult>> = {
    scip: (p) => adapters.get("scip")!.solve(p, SETTINGS, { workDir: mkdtempSync(path.join(workDir, "s-")), killGraceSeconds: 5 }),
    highs: (p) => adapters.get("highs")!.solve(p, SETTINGS, { workDir: mkdtempSync(path.join(workDir, "s-")), killGraceSeconds: 5 }),
    cbc: (p) => adapters.get("cbc")!.solve(p, SETTINGS, { workDir: mkdtempSync(path.join(workDir, "s-")), killGraceSeconds: 5 }),
    glpk: (p) => adapters.get("glpk")!.solve(p, SETTINGS, { workDir: mkdtempSync(path.join(workDir, "s-")), killGraceSeconds: 5 }),
    "jaos (engine)": (p) => jaosEngine.solve(p, SETTINGS, () => undefined),
    "highs (wasm engine)": (p) => highsWasmEngine.solve(p, SETTINGS, () => undefined),
  };

  for (const pinned of CASES) {
    it(`${pinned.title}: ${pinned.expected}${pinned.reference === null ? "" : ` ${pinned.reference}`} from every solver`, async () => {
      const problem = ProblemSchema.parse(pinned.problem);
      const verdicts: Record<string, string> = {};
      for (const [name, solve] of Object.entries(solvers)) {
        const { judgement, why } = judge(pinned, problem, await solve(problem));
        verdicts[name] = judgement === "right" ? "right" : `${judgement}: ${why}`;
      }
      expect(verdicts).toEqual(Object.fromEntries(Object.keys(solvers).map((name) => [name, "right"])));
    });
  }
});
