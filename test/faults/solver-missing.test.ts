import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../functions/core/config.js";
import { ProblemSchema } from "../../functions/core/problem/schema.js";
import { createSolverToolkit } from "../../solver-container/src/solver-toolkit.js";
import { machineHas } from "../support/machine.js";
import { BOX_LP } from "../support/models.js";
import { isFinal, pollUntil } from "../support/poll.js";
import { startTestStack } from "../support/test-stack.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;

/** PATH with `binary` taken out: each folder holding it becomes a folder of symlinks to the rest. */
function pathWithout(binary: string, root: string): string {
  return (process.env.PATH ?? "")
    .split(path.delimiter)
    .map((dir, i) => {
      if (!existsSync(path.join(dir, binary))) return dir;
      const shadow = path.join(root, String(i));
      mkdirSync(shadow, { recursive: true });
      for (const name of readdirSync(dir)) if (name !== binary) symlinkSync(path.join(dir, name), path.join(shadow, name));
      return shadow;
    })
    .join(path.delimiter);
}

/**
 * A machine without the cbc binary: PATH is rebuilt so every folder that held `cbc` is replaced by a
 * copy of it (symlinks) without it. The probe says cbc is missing, the API answers `not_available`
 * for it (a named solve refused, a comparison row unsupported), the other solvers run, and a solve
 * sent to the missing binary anyway is an `error` answer, never a crash.
 */
describe.runIf(machineHas("cbc", "glpsol"))("faults: a solver binary missing", () => {
  let stack: Stack;
  let shadowRoot: string;
  const savedPath = process.env.PATH;

  beforeAll(async () => {
    shadowRoot = mkdtempSync(path.join(tmpdir(), "incumbent-no-cbc-"));
    // The stack probes with this process's PATH and its workers inherit it: set it for both.
    process.env.PATH = pathWithout("cbc", shadowRoot);
    stack = await startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", LOCAL_WORKERS: "1", PATH: process.env.PATH } });
  });
  afterAll(async () => {
    await stack?.stop();
    process.env.PATH = savedPath;
    rmSync(shadowRoot, { recursive: true, force: true });
  });

  it("cbc is listed unavailable; a solve naming it is refused with not_available; a comparison's cbc row is unsupported/not_available and glpk's solves", async () => {
    const listed = await stack.api.get("/api/v2/solvers/available");
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toMatch(/"name":"cbc","available":true/);

    const named = await stack.api.post("/api/v2/solve", { problem: BOX_LP, solver_name: "cbc" });
    expect(named.status, named.text).toBe(422);
    expect(named.body).toMatchObject({ error_code: "no_solver_can_run_this_model", reasons: { cbc: "not_available" } });

    const compared = await stack.api.post("/api/v2/solvers/compare", { problem: BOX_LP, solver_names: ["cbc", "glpk"] });
    expect(compared.status, compared.text).toBe(202);
    const done = await pollUntil(stack.api, `/api/v2/solvers/compare/${compared.body.id}`, isFinal, { timeoutMs: 60_000 });
    expect(done.status).toBe("completed");
    expect(done.results[0]).toMatchObject({ solver_name: "cbc", solver_status: "unsupported", unsupported_reason: "not_available" });
    expect(done.results[1]).toMatchObject({ solver_name: "glpk", status: "completed", solver_status: "optimal", objective_value: 10 });
  }, 120_000);

  it("a solve sent to the missing binary anyway answers error naming it, and the toolkit solves on", async () => {
    const toolkit = await createSolverToolkit(loadConfig({}), { warm: false });
    try {
      const inventory = await toolkit.inventory();
      expect(inventory.find((s) => s.name === "cbc")?.available).toBe(false);
      const r = await toolkit.solve("cbc", {
        problem: ProblemSchema.parse(BOX_LP),
        settings: { timeLimitSeconds: 10, gapTolerance: 1e-4, threads: 1 },
        killGraceSeconds: 1,
      });
      expect(r.solver_status).toBe("error");
      expect(r.error_message).toMatch(/^CBC is not available: .*ENOENT/);
      expect(
        await toolkit.solve("glpk", {
          problem: ProblemSchema.parse(BOX_LP),
          settings: { timeLimitSeconds: 10, gapTolerance: 1e-4, threads: 1 },
          killGraceSeconds: 1,
        }),
      ).toMatchObject({
        solver_status: "optimal",
        objective_value: 10,
      });
    } finally {
      await toolkit.close();
    }
  });
});
