import { encodeRangedRow, formatNumber } from "./numbers.js";
import type { Problem } from "./schema.js";
import { canonicalQuadratic, mergeLinearTerms } from "./terms.js";
import { appendLines, planWrite, unusedName, writtenVariable, type WriteProblemOptions, type WrittenProblem } from "./write-common.js";

/**
 * Free MPS writer. Free, not fixed: fixed MPS cannot hold long names or shortest-round-trip numbers,
 * and glpsol rejects fixed files with tabs. The file says "NAME x FREE", which is how CoinMpsIO (CBC)
 * knows it is free format; HiGHS, SCIP and glpsol ignore the extra word.
 *
 * It never relies on a reader's defaults where readers differ:
 * - every integer column carries its upper bound explicitly (PL for +inf), since HiGHS reads an
 *   integer column without bounds as [0, 1] and others as [0, +inf);
 * - a negative upper bound is followed by the lower bound (readers differ on what UP < 0 does to it);
 * - each ranged row's RANGES value is chosen so that rhs ± |R| gives back the other bound exactly;
 * - quadratic terms go to QUADOBJ, one triangle, with the ½ convention undone (coef c on xi·xj is
 *   entry c, on xi² it is 2c), lower-triangle orientation (first column the earlier one).
 */

export type WriteMpsOptions = WriteProblemOptions;

/** Words that start a section for some MPS reader (HiGHS checks the first word of every line). */
const MPS_KEYWORDS = new Set([
  "NAME",
  "OBJSENSE",
  "OBJSENCE",
  "OBJNAME",
  "MAX",
  "MIN",
  "ROWS",
  "COLUMNS",
  "RHS",
  "RANGES",
  "BOUNDS",
  "QSECTION",
  "QMATRIX",
  "QUADOBJ",
  "QCMATRIX",
  "CSECTION",
  "DELAYEDROWS",
  "MODELCUTS",
  "INDICATORS",
  "SETS",
  "SOS",
  "GENCONS",
  "PWLOBJ",
  "PWLNAM",
  "PWLCON",
  "ENDATA",
]);

/** Why `name` cannot appear in a free MPS file, or null if it can. */
function mpsNameProblem(name: string, kind: "column" | "row"): string | null {
  if (/\s/.test(name)) return "free MPS separates fields by spaces";
  if (name.startsWith("$") || name.startsWith("*")) return "a leading $ or * starts a comment for some readers";
  if (kind === "column" && MPS_KEYWORDS.has(name.toUpperCase())) return "a column line starting with it reads as a section name";
  return null;
}

export function writeMps(problem: Problem, options: WriteMpsOptions = {}): WrittenProblem {
  const plan = planWrite(problem, { options, nameProblem: mpsNameProblem, formatName: "free MPS" });
  const sign = plan.objectiveSign;
  const names = plan.fileColumnNames;
  const columnIndex = new Map(problem.variables.map((v, j) => [v.name, j]));
  const objectiveRow = unusedName("OBJ", plan.usedNames);
  const rhsSet = unusedName("RHS", plan.usedNames);
  const rangeSet = unusedName("RNG", plan.usedNames);
  const boundSet = unusedName("BND", plan.usedNames);
  const out: string[] = [];

  out.push(`NAME ${problem.name.replace(/\s+/g, "_") || "problem"} FREE`);
  if (problem.sense === "maximize" && sign === 1) out.push("OBJSENSE", "    MAX");

  // ROWS, with each row's right-hand side and range worked out once.
  out.push("ROWS", ` N  ${objectiveRow}`);
  const rhs: string[] = [];
  const ranges: string[] = [];
  const objectiveCoef = new Float64Array(names.length);
  const columnRows: string[][] = names.map(() => []);
  const columnValues: number[][] = names.map(() => []);
  for (const t of mergeLinearTerms(problem.objective.terms)) objectiveCoef[columnIndex.get(t.var)!] = sign * t.coef;
  for (const { constraint, fileName } of plan.rows) {
    const { lb, ub } = constraint;
    let type: string;
    let value: number;
    if (lb !== null && lb === ub) [type, value] = ["E", lb];
    else if (lb === null) [type, value] = ["L", ub!];
    else if (ub === null) [type, value] = ["G", lb];
    else {
      const encoded = encodeRangedRow(lb, ub);
      [type, value] = [encoded.type, encoded.rhs];
      ranges.push(`    ${rangeSet}  ${fileName}  ${formatNumber(encoded.range)}`);
    }
    out.push(` ${type}  ${fileName}`);
    if (value !== 0) rhs.push(`    ${rhsSet}  ${fileName}  ${formatNumber(value)}`);
    for (const t of mergeLinearTerms(constraint.terms)) {
      const j = columnIndex.get(t.var)!;
      columnRows[j]!.push(fileName);
      columnValues[j]!.push(t.coef);
    }
  }

  out.push("COLUMNS");
  const variables = problem.variables.map(writtenVariable);
  let inIntegerBlock = false;
  variables.forEach((v, j) => {
    const integer = v.type !== "continuous";
    if (integer !== inIntegerBlock) {
      out.push(`    MARKER  'MARKER'  ${integer ? "'INTORG'" : "'INTEND'"}`);
      inIntegerBlock = integer;
    }
    const name = names[j]!;
    const rows = columnRows[j]!;
    const values = columnValues[j]!;
    // A column with no entries still needs one line to exist.
    if (objectiveCoef[j] !== 0 || rows.length === 0) out.push(`    ${name}  ${objectiveRow}  ${formatNumber(objectiveCoef[j]!)}`);
    for (let k = 0; k < rows.length; k++) out.push(`    ${name}  ${rows[k]}  ${formatNumber(values[k]!)}`);
  });
  if (inIntegerBlock) out.push("    MARKER  'MARKER'  'INTEND'");

  // HiGHS, CBC and SCIP read an objective-row RHS as minus the constant.
  if (plan.writtenConstant !== 0) rhs.unshift(`    ${rhsSet}  ${objectiveRow}  ${formatNumber(-plan.writtenConstant)}`);
  // Always written, even empty: CBC's CoinMpsIO refuses a file without an RHS section.
  // Appended one by one: spreading 250,000 lines into push() overflows the call stack.
  out.push("RHS");
  appendLines(out, rhs);
  if (ranges.length > 0) {
    out.push("RANGES");
    appendLines(out, ranges);
  }

  const bounds: string[] = [];
  for (const [j, v] of variables.entries()) {
    const bound = (type: string, value?: number): void =>
      void bounds.push(` ${type} ${boundSet}  ${names[j]}${value === undefined ? "" : `  ${formatNumber(value)}`}`);
    if (v.type === "binary") bound("BV");
    else if (v.lb !== null && v.lb === v.ub) bound("FX", v.lb);
    else if (v.lb === null && v.ub === null) bound("FR");
    else {
      // Upper first: a later LO overrides whatever a reader made of a negative UP.
      if (v.ub !== null) bound("UP", v.ub);
      else if (v.type === "integer") bound("PL");
      if (v.lb === null) bound("MI");
      else if (v.lb !== 0) bound("LO", v.lb);
    }
  }
  if (bounds.length > 0) {
    out.push("BOUNDS");
    appendLines(out, bounds);
  }

  const quadratic = canonicalQuadratic(problem.objective.quadratic ?? [], columnIndex);
  if (quadratic.length > 0) {
    out.push("QUADOBJ");
    for (const q of quadratic) {
      const i = columnIndex.get(q.var1)!;
      const k = columnIndex.get(q.var2)!;
      const entry = sign * (i === k ? 2 * q.coef : q.coef);
      out.push(`    ${names[i]}  ${names[k]}  ${formatNumber(entry)}`);
    }
  }
  out.push("ENDATA", "");

  return {
    text: out.join("\n"),
    columnNames: plan.columnNames,
    fileColumnNames: names,
    rowNames: plan.rows.map((r) => r.constraint.name),
    fileRowNames: plan.rows.map((r) => r.fileName),
    objectiveSign: sign,
    omittedObjectiveConstant: plan.omittedObjectiveConstant,
  };
}
