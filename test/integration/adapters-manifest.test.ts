import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../functions/core/config.js";
import { readLp } from "../../functions/core/problem/lp.js";
import { readMps } from "../../functions/core/problem/mps.js";
import type { Problem } from "../../functions/core/problem/schema.js";
import { createAdapters, type AdapterRegistry } from "../../solver-container/src/adapters/index.js";
import { resolvePythonPath } from "../../solver-container/src/adapters/paths.js";
import { PythonRuntime } from "../../solver-container/src/adapters/python-host.js";
import type { AdapterResult } from "../../solver-container/src/adapters/types.js";
import { machineHas } from "../support/machine.js";
import { objectiveMatches, readManifest, type ManifestEntry } from "../support/manifest.js";

/**
 * Every manifest instance, read by our readers and solved by scip, highs, cbc and glpk through their
 * adapters with a 60 s limit: each must report the manifest's status, and its optimum within 1e-6
 * relative (absolute for 0).
 *
 * The only exceptions are what a solver genuinely cannot do, with the exact honest outcome asserted:
 */
const GENUINE_LIMITS: Record<string, { why: string; check: (r: AdapterResult) => void }> = {
  "gt2.mps/glpk": {
    why: "glpsol, with its defaults, does not close gt2 in 60 s (gap ~10% left) where the others take < 0.1 s",
    check: (r) => {
      expect(r.solver_status).toBe("time_limit");
      expect(r.objective_value).not.toBeNull();
      expect(r.objective_value!).toBeGreaterThanOrEqual(21166 - 1e-6); // an incumbent, never better than the optimum
      expect(r.dual_bound).not.toBeNull();
      expect(r.dual_bound!).toBeLessThanOrEqual(21166 + 1e-6); // a bound, never above the optimum
      expect(r.gap).toBeGreaterThan(0);
    },
  },
};
// Not listed, because the adapters settle them soundly: CBC 2.10.8 calls the unbounded gas11
// "infeasible" (the adapter refutes that with a feasible point and proves unbounded with a verified
// ray); glpsol's presolver answers gas11 "no dual feasible solution" (the adapter re-solves without it).

const SOLVERS = ["scip", "highs", "cbc", "glpk"] as const;
// A gap tolerance of 1e-6 makes "optimal" mean what the check below asks: within 1e-6 of the optimum.
const SETTINGS = { timeLimitSeconds: 60, gapTolerance: 1e-6, threads: 1 };
const enabled = machineHas("cbc", "glpsol", "python_solvers", "instances");

function read(entry: ManifestEntry): Problem {
  const text = readFileSync(entry.path, "utf8");
  return entry.file.endsWith(".lp") ? readLp(text) : readMps(text);
}

/** Load average above twice the core count: solves get a fraction of a core each. */
function machineOverloaded(): boolean {
  return loadavg()[0]! > 2 * cpus().length;
}

/** A time limit that claims nothing false: no verdict, and incumbent and bound on the right sides. */
function expectHonestTimeLimit(r: AdapterResult, entry: ManifestEntry, sense: Problem["sense"]): void {
  expect(entry.expectedStatus).toBe("optimal");
  const optimum = entry.expectedObjective!;
  const s = sense === "minimize" ? 1 : -1; // compare in minimisation terms
  const slack = 1e-6 * Math.max(1, Math.abs(optimum));
  if (r.objective_value !== null) expect(s * r.objective_value).toBeGreaterThanOrEqual(s * optimum - slack);
  if (r.dual_bound !== null) expect(s * r.dual_bound).toBeLessThanOrEqual(s * optimum + slack);
}

type Job = { key: string; run: () => Promise<AdapterResult> };

/**
 * Runs the solves ahead of the tests that check them, phase after phase, each phase with its number of
 * parallel lanes; a test then awaits its own solve. Solvers limit wall time, so a solve that needs most
 * of its 60 s runs in a phase of its own rather than share a core with the rest.
 */
function schedule(phases: { jobs: Job[]; lanes: number }[]): Map<string, Promise<AdapterResult>> {
  const results = new Map<string, Promise<AdapterResult>>();
  const settle = new Map<string, (outcome: Promise<AdapterResult>) => void>();
  for (const job of phases.flatMap((p) => p.jobs)) {
    const promise = new Promise<AdapterResult>((resolve) => settle.set(job.key, resolve));
    promise.catch(() => undefined); // the test awaiting it reports a failure, not an unhandled rejection
    results.set(job.key, promise);
  }
  void (async () => {
    for (const phase of phases) {
      let next = 0;
      const lane = async () => {
        while (next < phase.jobs.length) {
          const job = phase.jobs[next++]!;
          const outcome = job.run();
          settle.get(job.key)!(outcome);
          await outcome.catch(() => undefined);
        }
      };
      await Promise.all(Array.from({ length: phase.lanes }, lane));
    }
  })();
  return results;
}

// glpsol needs ~30 s of CPU for p0548 (its other solves take seconds): alone first, then two lanes
// (the machine has two cores) with gt2/glpsol, which runs into its 60 s limit, overlapping the rest.
const ALONE = ["p0548.mps/glpk"];
const LONG = ["gt2.mps/glpk"];

describe.runIf(enabled)("manifest instances through the adapters (60 s limit)", () => {
  const manifest = enabled ? readManifest() : [];
  const python = new PythonRuntime({ pythonPath: resolvePythonPath(loadConfig().pythonPath) });
  let adapters: AdapterRegistry;
  let workDir: string;
  let solves: Map<string, Promise<AdapterResult>>;
  let problems: Map<string, Problem>;

  beforeAll(async () => {
    workDir = mkdtempSync(path.join(tmpdir(), "incumbent-manifest-"));
    await python.startHost();
    adapters = createAdapters({ python });
    problems = new Map(manifest.map((e) => [e.file, read(e)]));
    const job = (key: string): Job => {
      const [file, solver] = key.split("/") as [string, (typeof SOLVERS)[number]];
      return {
        key,
        run: () => adapters.get(solver)!.solve(problems.get(file)!, SETTINGS, { workDir: mkdtempSync(path.join(workDir, `${solver}-`)), killGraceSeconds: 5 }),
      };
    };
    const keys = manifest.flatMap((e) => SOLVERS.map((s) => `${e.file}/${s}`));
    const rest = keys.filter((k) => !ALONE.includes(k) && !LONG.includes(k));
    solves = schedule([
      { jobs: ALONE.map(job), lanes: 1 },
      { jobs: [...LONG, ...rest].map(job), lanes: 2 },
    ]);
  });
  afterAll(async () => {
    await python.stopHost();
    rmSync(workDir, { recursive: true, force: true });
  });

  it("lists no more genuine limits than there are", () => {
    expect(Object.keys(GENUINE_LIMITS)).toEqual(["gt2.mps/glpk"]);
  });

  for (const entry of manifest) {
    for (const solver of SOLVERS) {
      const key = `${entry.file}/${solver}`;
      const limit = GENUINE_LIMITS[key];
      const title = limit ? `${key}: genuine limit, ${limit.why}` : `${key}: ${entry.expectedStatus}${entry.expectedObjective === null ? "" : ` ${entry.expectedObjective}`}`;
      it(title, { timeout: 300_000 }, async () => {
        const r = await solves.get(key)!;
        if (limit) return limit.check(r);
        if (r.solver_status === "time_limit" && machineOverloaded()) {
          // Solver limits are wall time: a machine this busy did not give the solver its 60 s of CPU.
          console.warn(`[overload] ${key} hit its 60 s wall limit at load ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores; accepted only as an honest time_limit`);
          return expectHonestTimeLimit(r, entry, problems.get(entry.file)!.sense);
        }
        expect({ status: r.solver_status, error: r.error_message }).toEqual({ status: entry.expectedStatus, error: null });
        expect(r.solver_version).not.toBeNull();
        if (entry.expectedObjective !== null) {
          expect(objectiveMatches(r.objective_value, entry.expectedObjective), `objective ${r.objective_value} vs ${entry.expectedObjective}`).toBe(true);
          expect(Object.keys(r.solution ?? {})).toHaveLength(entry.cols);
        } else {
          expect(r.objective_value).toBeNull();
        }
      });
    }
  }
});
