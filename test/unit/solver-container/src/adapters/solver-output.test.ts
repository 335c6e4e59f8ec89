import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseCbcLog, parseCbcProgressLine, parseCbcSavedSolution, parseCbcSolution } from "../../../../../solver-container/src/adapters/cbc-output.js";
import {
  glpkClaim,
  parseGlpkHeuristicLine,
  parseGlpkLog,
  parseGlpkProgressLine,
  parseGlpkRaw,
} from "../../../../../solver-container/src/adapters/glpk-output.js";

/** Output captured from cbc 2.10.8 and glpsol 5.0 on the manifest instances (long logs trimmed). */
const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, "../../../../fixtures/solver-output", name), "utf8");

describe("CBC solution file", () => {
  it("reads an optimum and the nonzero columns", () => {
    const sol = parseCbcSolution(fixture("cbc-p0548-optimal.sol"));
    expect(sol.status).toBe("optimal");
    expect(sol.objective).toBe(8691);
    expect(sol.hasIncumbent).toBe(true);
    expect(sol.values.get("C1003")).toBe(1);
  });

  it("keeps a time-limited incumbent, and refuses the relaxation CBC writes when it has none", () => {
    const withIncumbent = parseCbcSolution(fixture("cbc-misc03-time-limit.sol"));
    expect(withIncumbent.status).toBe("stopped_on_time");
    expect(withIncumbent.hasIncumbent).toBe(true);
    expect(withIncumbent.objective).toBe(3905);

    const relaxation = parseCbcSolution(fixture("cbc-p0548-no-incumbent.sol"));
    expect(relaxation.status).toBe("stopped_on_time");
    expect(relaxation.headline).toContain("no integer solution");
    expect(relaxation.hasIncumbent).toBe(false);
  });

  it("tells LP infeasibility from branch-and-bound infeasibility, and marks ** rows", () => {
    expect(parseCbcSolution(fixture("cbc-gas11-claims-infeasible.sol")).status).toBe("infeasible");
    expect(parseCbcSolution(fixture("cbc-infeasible-mip1.sol")).status).toBe("integer_infeasible");
    const starred = parseCbcSolution("Infeasible - objective value 4.00000000\n**       1 hi      4      0\n      0 a    2.5     0\n");
    expect(starred.values.get("hi")).toBe(4);
    expect(starred.values.get("a")).toBe(2.5);
    expect(parseCbcSolution("Unbounded - objective value -1e+30\n").status).toBe("unbounded");
    expect(parseCbcSolution("Status unknown - objective value 0\n").status).toBe("unknown");
  });
});

describe("CBC log", () => {
  it("reads a MILP summary", () => {
    const log = parseCbcLog(fixture("cbc-p0548-optimal.log"));
    expect(log.version).toBe("2.10.8");
    expect(log.result).toBe("Optimal solution found");
    expect(log.objective).toBe(8691);
    expect(log.nodes).toBe(0);
    expect(log.iterations).toBeGreaterThan(0);
    expect(log.wallSeconds).not.toBeNull();
  });

  it("reads the bound of a run stopped on time", () => {
    const log = parseCbcLog(fixture("cbc-misc03-time-limit.log"));
    expect(log.result).toBe("Stopped on time limit");
    expect(log.objective).toBe(3905);
    expect(log.lowerBound).toBeCloseTo(2424.667, 3);
    expect(log.bestPossible).toBe(2424.667);
  });

  it("reads a pure LP, which has no summary block", () => {
    const log = parseCbcLog(fixture("cbc-afiro-lp.log"));
    expect(log.result).toBeNull();
    expect(log.objective).toBeCloseTo(-464.7531429, 6);
    expect(log.iterations).toBeGreaterThan(0);
  });

  it("collects CBC's own doubts and the LP's iteration count on gas11", () => {
    const log = parseCbcLog(fixture("cbc-gas11-claims-infeasible.log"));
    expect(log.result).toBe("Linear relaxation infeasible");
    expect(log.iterations).toBe(492);
    expect(log.undecidedRemarks).toEqual(["Presolve thinks problem is unbounded", "Analysis indicates model infeasible or unbounded"]);
  });

  it("echoes the settings it applied", () => {
    const log = parseCbcLog(fixture("cbc-settings-echo.log"));
    expect(log.echoed).toEqual({ timeMode: "elapsed", seconds: "7", ratioGap: "0.001", threads: "2" });
  });

  it("streams incumbents and bounds", () => {
    expect(parseCbcProgressLine("Cbc0010I After 100 nodes, 11 on tree, 3360 best solution, best possible 3073.75 (1.52 seconds)")).toEqual({
      nodes: 100,
      incumbent: 3360,
      bound: 3073.75,
    });
    expect(parseCbcProgressLine("Cbc0010I After 0 nodes, 1 on tree, 1e+50 best solution, best possible 2433.9794 (0.67 seconds)")).toEqual({
      nodes: 0,
      incumbent: undefined,
      bound: 2433.9794,
    });
    expect(parseCbcProgressLine("Cbc0012I Integer solution of 3905 found by feasibility pump after 0 iterations and 0 nodes (0.16 seconds)")).toEqual({
      incumbent: 3905,
    });
    expect(parseCbcProgressLine("Cbc0004I Integer solution of 3360 found after 4117 iterations and 48 nodes (1.20 seconds)")).toEqual({ incumbent: 3360 });
    expect(parseCbcProgressLine("Cbc0013I At root node, 26 cuts changed objective from 1910 to 2433.9794 in 100 passes")).toEqual({ bound: 2433.9794 });
    expect(parseCbcProgressLine("Coin0008I read with 0 errors")).toBeNull();
  });
});

describe("glpsol raw solution", () => {
  it("reads an LP basic solution", () => {
    const raw = parseGlpkRaw(fixture("glpk-afiro-lp.raw"));
    expect(raw).toMatchObject({ kind: "lp", rows: 27, columns: 32, primal: "feasible", dual: "feasible" });
    expect(raw.objective).toBeCloseTo(-464.753142857143, 10);
  });

  it("reads a MIP solution's values in column order", () => {
    const raw = parseGlpkRaw(fixture("glpk-flugpl-optimal.raw"));
    expect(raw).toMatchObject({ kind: "mip", rows: 18, columns: 18, primal: "optimal", objective: 1201500 });
    expect(raw.values).toHaveLength(18);
    expect(raw.values[0]).toBe(60);
  });

  it("reads the states that decide a verdict", () => {
    expect(parseGlpkRaw(fixture("glpk-gt2-time-limit.raw")).primal).toBe("feasible");
    expect(parseGlpkRaw(fixture("glpk-infeasible-mip1.raw")).primal).toBe("no_feasible");
    expect(parseGlpkRaw(fixture("glpk-gas11-nopresol.raw"))).toMatchObject({ primal: "feasible", dual: "no_feasible" });
    expect(parseGlpkRaw(fixture("glpk-mip-relaxation-unbounded.raw")).primal).toBe("undefined");
    expect(() => parseGlpkRaw("c nothing\n")).toThrow(/no 's' line/);
  });
});

describe("glpsol log", () => {
  it("reads a MIP's last progress line: bound, nodes, iterations", () => {
    const log = parseGlpkLog(fixture("glpk-gt2-time-limit.log"));
    expect(log.version).toBe("5.0");
    expect(log.messages.map((m) => m.kind)).toContain("time_limit");
    expect(log.incumbent).toBe(23219);
    expect(log.bound).toBe(19727);
    expect(log.nodes).toBeGreaterThan(0);
    expect(log.echoedArgs).toContain("--tmlim 1");
  });

  it("takes an empty tree as a closed search", () => {
    const log = parseGlpkLog(fixture("glpk-flugpl-optimal.log"));
    expect(log.messages.map((m) => m.kind)).toEqual(["optimal_lp", "integer_optimal"]);
    expect(log.bound).toBe(1201500);
    expect(log.nodes).toBe(385);
    expect(log.iterations).toBe(267);
  });

  it("knows presolve's undecided answer from simplex's proof", () => {
    expect(parseGlpkLog(fixture("glpk-gas11-presolve.log")).messages.map((m) => m.kind)).toEqual(["no_dual_feasible"]);
    expect(parseGlpkLog(fixture("glpk-gas11-nopresol.log")).messages.map((m) => m.kind)).toEqual(["lp_unbounded"]);
    expect(parseGlpkLog(fixture("glpk-infeasible-mip1.log")).messages.map((m) => m.kind)).toEqual(["optimal_lp", "no_integer_feasible"]);
    expect(parseGlpkLog(fixture("glpk-mip-relaxation-unbounded.log")).messages.map((m) => m.kind)).toEqual(["lp_unbounded"]);
    expect(parseGlpkLog(fixture("glpk-afiro-lp.log")).iterations).toBe(10);
  });

  it("joins the command line glpsol wraps", () => {
    const log =
      "GLPSOL--GLPK LP/MIP Solver 5.0\nParameter(s) specified in the command line:\n --freemps /a/long/path/m.mps\n --tmlim 8 --mipgap 0.003 -w /a/long/path/m.raw\nReading problem data from '/a/long/path/m.mps'...\n";
    expect(parseGlpkLog(log).echoedArgs).toBe("--freemps /a/long/path/m.mps --tmlim 8 --mipgap 0.003 -w /a/long/path/m.raw");
  });

  it("streams MIP progress lines", () => {
    expect(parseGlpkProgressLine("+   199: >>>>>   1.201500000e+06 >=   1.187241667e+06   1.2% (61; 94)")).toEqual({
      iterations: 199,
      incumbent: 1201500,
      bound: 1187241.667,
      nodes: 94,
    });
    expect(parseGlpkProgressLine("+     8: mip =     not found yet >=              -inf        (1; 0)")).toEqual({
      iterations: 8,
      incumbent: null,
      bound: null,
      nodes: 0,
    });
    expect(parseGlpkProgressLine("+   267: mip =   1.201500000e+06 >=     tree is empty   0.0% (0; 385)")).toMatchObject({
      incumbent: 1201500,
      bound: 1201500,
    });
    // Below a tenth of a percent glpsol prints the gap as "< 0.1%" (bell5's last line, where the search stopped).
    expect(parseGlpkProgressLine("+ 35288: mip =   8.966413705e+06 >=   8.966405632e+06 < 0.1% (20; 39728)")).toEqual({
      iterations: 35288,
      incumbent: 8966413.705,
      bound: 8966405.632,
      nodes: 39728,
    });
    expect(parseGlpkProgressLine("*    10: obj =  -4.647531429e+02 inf =   0.000e+00 (0)")).toBeNull();
  });

  it("reads an incumbent its heuristic found between progress lines", () => {
    expect(parseGlpkHeuristicLine("Solution found by heuristic: 27576")).toBe(27576);
    expect(parseGlpkHeuristicLine("Solution found by heuristic: -1.5e+03")).toBe(-1500);
    expect(parseGlpkHeuristicLine("+  5086: >>>>>   2.321900000e+04 >=   1.972700000e+04  15.0% (1552; 1880)")).toBeNull();
  });
});

describe("glpsol claims: every outcome of simplex, interior point and the MIP solver", () => {
  const claimOf = (name: string) => glpkClaim(parseGlpkRaw(fixture(`glpk-${name}.raw`)), parseGlpkLog(fixture(`glpk-${name}.log`)));

  it.each([
    ["afiro-lp", "optimal"],
    ["interior-optimal", "optimal"],
    ["flugpl-optimal", "optimal"],
    ["gt2-time-limit", "time_limit"],
    ["lp-infeasible-simplex", "infeasible"],
    ["lp-infeasible-presolver", "infeasible"],
    ["lp-unbounded-simplex", "unbounded"],
    ["gas11-nopresol", "unbounded"],
    ["interior-undecided", "infeasible_or_unbounded"],
    ["mip-relaxation-infeasible", "infeasible"],
    ["mip-relaxation-unbounded", "unbounded"],
    ["mip-presolver-infeasible", "integer_infeasible"],
    ["infeasible-mip1", "integer_infeasible"],
    ["mip-preprocessor-wrong-optimum", "optimal"],
  ])("%s → %s", (name, claim) => {
    expect(claimOf(name)).toBe(claim);
  });

  it("takes the presolver's undecided answer, with its undefined solution, as infeasible or unbounded", () => {
    const presolved = parseGlpkRaw("s bas 459 862 u u 0\ne o f\n");
    expect(glpkClaim(presolved, parseGlpkLog(fixture("glpk-gas11-presolve.log")))).toBe("infeasible_or_unbounded");
  });

  it("knows nothing from a crash or a numerical failure", () => {
    expect(glpkClaim(null, { messages: [] })).toBe("unknown");
    const failed = parseGlpkLog("NUMERIC INSTABILITY; SEARCH TERMINATED\n");
    expect(failed.messages.map((m) => m.kind)).toEqual(["numerical_failure"]);
    expect(glpkClaim(parseGlpkRaw("s bas 1 1 u u 0\n"), failed)).toBe("unknown");
    expect(glpkClaim(parseGlpkRaw("s mip 1 1 f 3\n"), parseGlpkLog("ITERATION LIMIT EXCEEDED; SEARCH TERMINATED\n"))).toBe("integer_feasible");
  });

  it("reads interior-point values and the row duals of basic and interior solutions", () => {
    const interior = parseGlpkRaw(fixture("glpk-interior-optimal.raw"));
    expect(interior.kind).toBe("ipt");
    expect(interior.values[0]).toBeCloseTo(2, 6);
    expect(interior.values[1]).toBeCloseTo(2, 6);
    expect(interior.rowDuals[0]).toBeCloseTo(-1, 6);
    const basic = parseGlpkRaw(fixture("glpk-afiro-lp.raw"));
    expect(basic.rowDuals.slice(0, 4)).toEqual([-0.628571428571429, 0, -0.344771428571429, -0.228571428571429]);
    expect(parseGlpkRaw(fixture("glpk-flugpl-optimal.raw")).rowDuals).toEqual([]);
  });
});

describe("CBC saved solution (saveSolution, full precision)", () => {
  it("reads an LP's objective, values and duals as doubles: max x + y, 3x + y ≤ 1, x + 6y ≤ 1", () => {
    const saved = parseCbcSavedSolution(readFileSync(path.join(import.meta.dirname, "../../../../fixtures/solver-output/cbc-two-rows-lp.sol.bin")))!;
    expect(saved.objective).toBeCloseTo(7 / 17, 15);
    expect(saved.columnValues[0]).toBeCloseTo(5 / 17, 15);
    expect(saved.columnValues[1]).toBeCloseTo(2 / 17, 15);
    expect(saved.rowActivities).toEqual([1, 1]);
    expect(saved.rowDuals[0]).toBeCloseTo(5 / 17, 15);
    expect(saved.rowDuals[1]).toBeCloseTo(2 / 17, 15);
  });

  it("reads a MILP's incumbent in column order, and refuses a file of another shape", () => {
    const saved = parseCbcSavedSolution(readFileSync(path.join(import.meta.dirname, "../../../../fixtures/solver-output/cbc-flugpl-optimal.sol.bin")))!;
    expect(saved.objective).toBeCloseTo(1201500, 6);
    expect(saved.columnValues).toHaveLength(18);
    expect(saved.columnValues[0]).toBeCloseTo(60, 9);
    expect(parseCbcSavedSolution(new Uint8Array(12))).toBeNull();
    expect(parseCbcSavedSolution(new Uint8Array([2, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]))).toBeNull();
  });
});
