import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GENUINE_LIMITS } from "../support/genuine-limits.js";
import { machineHas } from "../support/machine.js";
import { objectiveMatches, readInstance, readManifest } from "../support/manifest.js";
import { isFinal, pollUntil } from "../support/poll.js";
import { startTestStack } from "../support/test-stack.js";

/**
 * Issue 3's acceptance through the HTTP API: every manifest instance, uploaded with import preview (which
 * reads it with the right rows, columns and integer columns) and solved by scip, highs, cbc and glpk
 * with a 60 s limit (longer where listed below) — one comparison per instance, two workers at a time. Each row reports the
 * manifest's status, and its objective within 1e-6 relative (absolute for 0), except the genuine limits
 * listed in test/support/genuine-limits.ts, whose honest outcome is asserted instead.
 */
const SOLVERS = ["scip", "highs", "cbc", "glpk"];
const LIMIT_SECONDS = 60;
/**
 * Instances whose comparison gets a longer limit, still asserting every solver's optimum: glpsol proves
 * p0548's in ~28 s of CPU, which two CI runs at once on 2 cores stretched past 60 s of wall time (~100 s
 * measured at load 13); the other solvers close it in about a second, so only GLPK uses the room.
 * The genuine limits keep 60 s: their asserted outcome is the one at that limit.
 */
const LONGER_LIMIT_SECONDS: Record<string, number> = { "p0548.mps": 300 };
const ready = machineHas("cbc", "glpsol", "python_solvers");

describe.runIf(ready)("every manifest instance through the HTTP API (60 s limit)", () => {
  const manifest = ready ? readManifest() : [];
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  const comparisons = new Map<string, Promise<any>>();

  beforeAll(async () => {
    stack = await startTestStack({ env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", LOCAL_WORKERS: "2" } });
    // The slow ones first, so they overlap the rest instead of adding to it.
    const ordered = [...manifest].sort(
      (a, b) => Number(b.file === "gt2.mps") - Number(a.file === "gt2.mps") || Number(b.file === "p0548.mps") - Number(a.file === "p0548.mps"),
    );
    for (const entry of ordered) {
      const preview = await stack.api.post("/api/v2/solve/import/preview", { content: readInstance(entry), filename: entry.file });
      expect(preview.status, `${entry.file}: ${preview.text.slice(0, 300)}`).toBe(200);
      expect(preview.body.stats, entry.file).toMatchObject({
        variable_count: entry.cols,
        constraint_count: entry.rows,
        integer_count: expect.any(Number),
      });
      expect(preview.body.stats.integer_count + preview.body.stats.binary_count, entry.file).toBe(entry.integerCols);
      // gap 1e-6: "optimal" then means what the check below asks, within 1e-6 of the optimum.
      const launched = await stack.api.post("/api/v2/solvers/compare", {
        problem: preview.body.problem,
        solver_names: SOLVERS,
        uploaded_filename: entry.file,
        settings: { time_limit_seconds: LONGER_LIMIT_SECONDS[entry.file] ?? LIMIT_SECONDS, gap_tolerance: 1e-6 },
      });
      expect(launched.status, launched.text).toBe(202);
      // Every 2 s: two dozen comparisons polled faster would take CPU from the solvers being timed.
      const done = pollUntil(stack.api, `/api/v2/solvers/compare/${launched.body.id}`, isFinal, { timeoutMs: 15 * 60_000, everyMs: 2000 });
      done.catch(() => undefined);
      comparisons.set(entry.file, done);
    }
    // A preview and a launch per instance, one after another: over 5 min on a 2-core machine at load ~60.
  }, 10 * 60_000);
  afterAll(() => stack?.stop());

  it("lists no more genuine limits than there are", () => {
    expect(Object.keys(GENUINE_LIMITS)).toEqual(["gt2.mps/glpk"]);
  });

  for (const entry of manifest) {
    it(`${entry.file}: ${entry.expectedStatus}${entry.expectedObjective === null ? "" : ` ${entry.expectedObjective}`} from every solver`, {
      timeout: 15 * 60_000,
    }, async () => {
      const done = await comparisons.get(entry.file)!;
      expect(done.problem_class).toBe(entry.kind);
      for (const row of done.results) {
        const key = `${entry.file}/${row.solver_name}`;
        const limit = GENUINE_LIMITS[key];
        if (limit) {
          limit.check(row);
          continue;
        }
        expect({ key, status: row.solver_status, error: row.error_message }).toEqual({ key, status: entry.expectedStatus, error: null });
        expect(row.solver_version, key).toEqual(expect.any(String));
        if (entry.expectedObjective !== null) {
          expect(objectiveMatches(row.objective_value, entry.expectedObjective), `${key}: ${row.objective_value} vs ${entry.expectedObjective}`).toBe(true);
        } else {
          expect(row.objective_value, key).toBeNull();
        }
      }
      if (entry.expectedObjective !== null) {
        // Each row's solution is on its execution, one value per column.
        for (const row of done.results) {
          if (GENUINE_LIMITS[`${entry.file}/${row.solver_name}`]) continue;
          const exe = await stack.api.get(`/api/v2/models/executions/${row.execution_id}`);
          expect(Object.keys(exe.body.result.solution), `${entry.file}/${row.solver_name}`).toHaveLength(entry.cols);
        }
      }
    });
  }
});
