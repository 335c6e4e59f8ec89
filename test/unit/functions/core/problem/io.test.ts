import { describe, expect, it } from "vitest";
import { detectFormat, readProblemFile } from "../../../../../functions/core/problem/index.js";
import { readLp, writeLp } from "../../../../../functions/core/problem/lp.js";
import { readMps, writeMps } from "../../../../../functions/core/problem/mps.js";
import { ProblemSchema } from "../../../../../functions/core/problem/schema.js";
import type { WrittenProblem } from "../../../../../functions/core/problem/write-common.js";
import { readInstance, readManifest } from "../../../../support/manifest.js";
import { withOriginalNames } from "../../../../support/problem-io.js";

const manifest = readManifest();
const read = (file: string, text: string) => (file.endsWith(".lp") ? readLp(text) : readMps(text));

describe("manifest instances", () => {
  const files = manifest.map((m) => [m.file, m] as const);

  it.each(files)("%s reads with the manifest's rows, columns and integer columns", (file, entry) => {
    const text = readInstance(entry);
    const problem = read(file, text);
    // The manifest's rows are constraints without the objective (N) row: afiro has 28 ROWS
    // lines, one of them N, and the manifest says 27.
    expect(problem.constraints.length).toBe(entry.rows);
    expect(problem.variables.length).toBe(entry.cols);
    expect(problem.variables.filter((v) => v.type !== "continuous").length).toBe(entry.integerCols);
    expect(ProblemSchema.safeParse(problem).success).toBe(true);
    expect(readProblemFile(text, { format: "auto", filename: file })).toEqual(problem);
    expect(readProblemFile(text, { format: "auto" })).toEqual(problem);
  });

  it("counts rows the way the manifest does (objective row excluded)", () => {
    const afiro = readInstance("afiro.mps");
    const rowsSection = afiro.slice(afiro.indexOf("\nROWS") + 6, afiro.indexOf("\nCOLUMNS"));
    const rowLines = rowsSection.split("\n").filter((l) => l.trim().length > 0);
    expect(rowLines.length).toBe(28);
    expect(rowLines.filter((l) => l.trim().startsWith("N")).length).toBe(1);
    expect(manifest.find((m) => m.file === "afiro.mps")!.rows).toBe(27);
  });

  it.each(files.filter(([f]) => f.endsWith(".mps")))("%s reads the same as fixed and as free MPS", (_file, entry) => {
    const text = readInstance(entry);
    expect(readMps(text, { format: "fixed" })).toEqual(readMps(text, { format: "free" }));
  });

  it.each(files)("%s round-trips exactly through writeMps", (file, entry) => {
    const problem = read(file, readInstance(entry));
    const once = readMps(writeMps(problem).text);
    expect(once).toEqual(problem);
    expect(readMps(writeMps(once).text)).toEqual(once);
  });

  it.each(files)("%s round-trips exactly through writeLp", (file, entry) => {
    const problem = read(file, readInstance(entry));
    // Netlib names such as "...100" or "1G0EXP" cannot be LP names: those files go through safeNames.
    let written: WrittenProblem;
    try {
      written = writeLp(problem);
    } catch {
      written = writeLp(problem, { safeNames: true });
    }
    const once = withOriginalNames(readLp(written.text), written);
    expect(once).toEqual(problem);
  });

  it("e226's objective-row RHS −7.113 is the objective constant +7.113", () => {
    const problem = readMps(readInstance("e226.mps"));
    expect(problem.objective.constant).toBe(7.113);
  });

  it("stein27_inf.lp reads its 27 binaries, 117 covering rows and two cardinality rows", () => {
    const problem = readLp(readInstance("stein27_inf.lp"));
    expect(problem.name).toBe("STEIN27_INF");
    expect(problem.sense).toBe("minimize");
    expect(problem.variables.every((v) => v.type === "binary" && v.lb === 0 && v.ub === 1)).toBe(true);
    // Variables are numbered by first appearance: the objective starts with x0026.
    expect(problem.variables[0]!.name).toBe("x0026");
    expect(problem.objective.terms).toHaveLength(27);
    expect(problem.constraints[0]).toEqual({
      name: "A1",
      terms: [
        { var: "x0002", coef: 1 },
        { var: "x0003", coef: 1 },
        { var: "x0004", coef: 1 },
      ],
      lb: 1,
      ub: null,
    });
    const objcut = problem.constraints.find((c) => c.name === "objcut")!;
    expect([objcut.lb, objcut.ub, objcut.terms.length]).toEqual([null, 16, 27]);
    expect(problem.constraints.find((c) => c.name === "OB2")!.lb).toBe(13);
  });
});

describe("readProblemFile", () => {
  const mps = "NAME t\nROWS\n N obj\nCOLUMNS\n x obj 1\nENDATA\n";
  const lp = "\\ a comment\nMinimize\n obj: x\nEnd\n";

  it("chooses by extension, then by content", () => {
    expect(detectFormat(mps, "model.MPS")).toBe("mps");
    expect(detectFormat(lp, "model.lp")).toBe("lp");
    expect(detectFormat(mps)).toBe("mps");
    expect(detectFormat(lp)).toBe("lp");
    expect(detectFormat("* comment\n\nROWS\n", "upload.txt")).toBe("mps");
    expect(readProblemFile(lp, { format: "auto" }).variables.map((v) => v.name)).toEqual(["x"]);
    expect(readProblemFile(mps, { format: "auto", filename: "x.bin" }).variables.map((v) => v.name)).toEqual(["x"]);
  });

  it("takes an explicit format over the file name", () => {
    expect(() => readProblemFile(lp, { format: "mps", filename: "model.lp" })).toThrow(/MPS line/);
  });
});
