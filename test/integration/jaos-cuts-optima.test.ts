/**
 * jaos's root cut separators never cut off a known optimum: on MIPLIB 3 models whose cuts carry the
 * root bound (fixed-charge network, lot sizing), native HiGHS (highspy) gives an optimal solution; a
 * few rounds of c-MIR, lifted cover and (l,S) path cuts are separated at the LP optimum of the model
 * with the cuts so far, and every cut must hold at that solution (to a tolerance scaled by the cut's
 * terms at the point: HiGHS's solution is feasible within 1e-6).
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readMps } from "../../functions/core/problem/mps.js";
import { type Cut, LpEngine, MirSeparator, modelFromProblem, PathSeparator, withRows } from "@incumbent/jaos";
import { machineHas, REPO_ROOT } from "../support/machine.js";
import { plainInstanceFile, readInstance } from "../support/manifest.js";

const MODELS = ["set1ch.mps", "fixnet6.mps", "pp08a.mps", "vpm1.mps"];
const ROUNDS = 6;

const HIGHS_SOLUTION = `
import highspy, json, sys
h = highspy.Highs()
h.setOptionValue("output_flag", False)
h.setOptionValue("threads", 1)
h.setOptionValue("mip_rel_gap", 0)
h.readModel(sys.argv[1])
h.run()
assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal, h.getModelStatus()
lp = h.getLp()
print(json.dumps(dict(zip(lp.col_names_, h.getSolution().col_value))))
`;

function highsOptimum(file: string): Map<string, number> {
  const python = path.join(REPO_ROOT, ".venv/bin/python");
  const out = execFileSync(python, ["-c", HIGHS_SOLUTION, file], { encoding: "utf8", maxBuffer: 1 << 26 });
  return new Map(Object.entries(JSON.parse(out) as Record<string, number>));
}

const run = machineHas("python_solvers");

describe.runIf(run)("jaos root cuts at known optima", () => {
  it.each(MODELS)(
    "%s: no c-MIR, cover or path cut cuts off native HiGHS's optimal solution",
    (file) => {
      const mapping = modelFromProblem(readMps(readInstance(`scale/${file}`)));
      const optimum = highsOptimum(plainInstanceFile(`scale/${file}`));
      const xOpt = Float64Array.from(mapping.colNames, (name) => {
        const v = optimum.get(name);
        if (v === undefined) throw new Error(`${file}: HiGHS has no column ${name}`);
        return v;
      });
      const base = mapping.model;
      const mir = new MirSeparator(base, true);
      const paths = new PathSeparator(base);
      let model = base;
      let checked = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const lp = new LpEngine(model).solve({ deadline: performance.now() + 30_000 });
        expect(lp.status).toBe("optimal");
        const cuts: Cut[] = [...mir.separate(lp.x!, 100, performance.now() + 10_000).map((c) => c.cut), ...paths.separate(lp.x!, 100).map((c) => c.cut)];
        if (cuts.length === 0) break;
        for (const cut of cuts) {
          let lhs = 0;
          let scale = Math.abs(cut.lower);
          cut.index.forEach((j, k) => {
            lhs += cut.value[k]! * xOpt[j]!;
            scale += Math.abs(cut.value[k]! * xOpt[j]!);
          });
          expect(lhs, `${file} round ${round}`).toBeGreaterThanOrEqual(cut.lower - 1e-6 * Math.max(1, scale));
          checked++;
        }
        model = withRows(model, cuts);
      }
      expect(checked).toBeGreaterThan(10);
    },
    120_000,
  );
});
