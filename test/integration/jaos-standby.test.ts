import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ProblemSchema } from "../../functions/core/problem/schema.js";
import type { SolveSettings } from "../../functions/core/solvers/types.js";
import { siblingModule, solveInNodeChild, StandbyChild } from "../../solver-container/src/adapters/node-engine.js";
import { processGroupAlive } from "../../solver-container/src/adapters/process.js";
import { marketSplitProblem, ODD_NAMES_MILP, SMALL_MILP } from "../support/models.js";

const workDir = mkdtempSync(path.join(tmpdir(), "jaos-standby-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));
const ENGINE = { modulePath: siblingModule("jaos"), exportName: "jaosEngine" };
const settings = (overrides: Partial<SolveSettings> = {}): SolveSettings => ({ timeLimitSeconds: 30, gapTolerance: 1e-4, threads: 1, ...overrides });
const smallMilp = ProblemSchema.parse(ODD_NAMES_MILP);

async function solveWith(standby: StandbyChild, problem = smallMilp, signal?: AbortSignal) {
  return solveInNodeChild(ENGINE, {
    solverTitle: "jaos",
    version: "test",
    problem,
    settings: settings(),
    context: { workDir, killGraceSeconds: 5, signal },
    standby,
  });
}

describe("a jaos standby child serves solve after solve", () => {
  it("serves the next solve in the same warm process, up to its share, then a fresh one stands by", async () => {
    const standby = new StandbyChild(ENGINE, { solvesPerChild: 3 });
    try {
      standby.start();
      expect(await standby.whenReady()).toBe(true);
      const first = standby.describe();
      expect(first).toEqual({ pid: expect.any(Number), served: 0 });

      const a = await solveWith(standby);
      expect(a.solver_status).toBe("optimal");
      expect(a.objective_value).toBe(16);
      expect(standby.describe()).toEqual({ pid: first!.pid, served: 1 });
      expect(await standby.whenReady()).toBe(true);

      const other = await solveWith(standby, ProblemSchema.parse(SMALL_MILP));
      expect(other.solver_status).toBe("optimal");
      expect(standby.describe()).toEqual({ pid: first!.pid, served: 2 });

      const b = await solveWith(standby);
      // a served child solves as it did before: nothing of one solve carries into the next
      const path = (r: typeof a) => ({ status: r.solver_status, objective: r.objective_value, solution: r.solution, nodes: r.nodes, iterations: r.iterations });
      expect(path(b)).toEqual(path(a));
      // its share served: stopped, and nothing stands by until the worker asks for one
      expect(standby.describe()).toBeNull();
      for (let i = 0; i < 50 && processGroupAlive(first!.pid); i++) await new Promise((r) => setTimeout(r, 100));
      expect(processGroupAlive(first!.pid)).toBe(false);

      standby.start();
      expect(await standby.whenReady()).toBe(true);
      expect(standby.describe()!.pid).not.toBe(first!.pid);
    } finally {
      await standby.close();
    }
  }, 60_000);

  it("does not serve again after the kill switch stopped its solve", async () => {
    const standby = new StandbyChild(ENGINE);
    try {
      standby.start();
      expect(await standby.whenReady()).toBe(true);
      const pid = standby.describe()!.pid;
      const abort = new AbortController();
      setTimeout(() => abort.abort(), 1500);
      const r = await solveWith(standby, ProblemSchema.parse(marketSplitProblem(5, 40, 7)), abort.signal);
      expect(r.solver_status).not.toBe("optimal");
      expect(standby.describe()).toBeNull();
      expect(processGroupAlive(pid)).toBe(false);
    } finally {
      await standby.close();
    }
  }, 60_000);

  it("takes back no child whose resident set grew past half its memory ceiling", async () => {
    const standby = new StandbyChild(ENGINE);
    const sleeper = () => spawn("sleep", ["30"], { detached: true, stdio: ["pipe", "pipe", "pipe"] });
    try {
      const grown = sleeper();
      standby.giveBack(grown, { memoryMb: 1000, rssMb: 501 });
      expect(standby.describe()).toBeNull();
      for (let i = 0; i < 50 && processGroupAlive(grown.pid!); i++) await new Promise((r) => setTimeout(r, 100));
      expect(processGroupAlive(grown.pid!)).toBe(false);

      const lean = sleeper();
      standby.giveBack(lean, { memoryMb: 1000, rssMb: 499 });
      expect(standby.describe()).toEqual({ pid: lean.pid, served: 1 });
    } finally {
      await standby.close();
    }
  });
});
