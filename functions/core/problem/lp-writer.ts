import { LP_RESERVED_WORDS } from "./lp-tokens.js";
import { formatNumber } from "./numbers.js";
import type { Problem, Term } from "./schema.js";
import { canonicalQuadratic, mergeLinearTerms } from "./terms.js";
import { appendLines, planWrite, unusedName, writtenVariable, type WriteProblemOptions, type WrittenProblem } from "./write-common.js";

/**
 * CPLEX LP writer. The objective lists every variable, with 0 where it has no cost, so that any
 * reader numbers the variables in the problem's order (LP files number them by first appearance).
 * Quadratic terms are written `[ ... ] / 2` with doubled coefficients, undoing the format's ½.
 */

export interface WriteLpOptions extends WriteProblemOptions {
  /**
   * How to write a constraint with two finite sides. "double-inequality" (default, CPLEX and CBC
   * read it): `lo <= expr <= hi`. "split": two rows `name_lo: expr >= lo` and `name_up: expr <= hi`,
   * for readers without ranged rows (HiGHS 1.15 aborts on them; glpsol rejects them).
   */
  rangedRows?: "double-inequality" | "split";
}

/** Letters, digits and the symbols CPLEX allows in names. */
const LP_NAME = /^[A-Za-z0-9!"#$%&()/,.;?@_`'{}|~]+$/;

/** Why `name` cannot appear in an LP file, or null if it can. */
function lpNameProblem(name: string): string | null {
  if (!LP_NAME.test(name)) return "LP names hold only letters, digits and !\"#$%&()/,.;?@_`'{}|~";
  if (/^[0-9.]/.test(name)) return "it starts like a number";
  if (LP_RESERVED_WORDS.has(name.toLowerCase())) return "it is an LP keyword";
  return null;
}

/** Lines of at most about `width` characters, broken between terms; indented one space, continuations two. */
class Lines {
  private current = "";
  constructor(
    private readonly out: string[],
    private readonly width = 100,
  ) {}
  add(part: string): void {
    if (this.current.length === 0) {
      this.current = ` ${part}`;
      return;
    }
    if (this.current.length + part.length + 1 > this.width) {
      this.out.push(this.current);
      this.current = `  ${part}`;
      return;
    }
    this.current += ` ${part}`;
  }
  end(): void {
    if (this.current.length > 0) this.out.push(this.current);
    this.current = "";
  }
}

function signed(coef: number, name: string): string {
  const magnitude = Math.abs(coef);
  return `${coef < 0 ? "-" : "+"} ${magnitude === 1 ? "" : `${formatNumber(magnitude)} `}${name}`;
}

export function writeLp(problem: Problem, options: WriteLpOptions = {}): WrittenProblem {
  const plan = planWrite(problem, { options, nameProblem: lpNameProblem, formatName: "LP" });
  const sign = plan.objectiveSign;
  const names = plan.fileColumnNames;
  const columnIndex = new Map(problem.variables.map((v, j) => [v.name, j]));
  const fileName = (variable: string) => names[columnIndex.get(variable)!]!;
  const out: string[] = [`\\Problem name: ${problem.name.replace(/\s+/g, "_") || "problem"}`, ""];

  // Objective: every variable, in order.
  const written = problem.sense === "maximize" && sign === 1 ? "Maximize" : "Minimize";
  out.push(written);
  const objective = new Lines(out);
  objective.add(`${unusedName("obj", plan.usedNames)}:`);
  const cost = new Float64Array(names.length);
  for (const t of mergeLinearTerms(problem.objective.terms)) cost[columnIndex.get(t.var)!] = sign * t.coef;
  names.forEach((name, j) => {
    objective.add(cost[j] === 0 ? `+ 0 ${name}` : signed(cost[j]!, name));
  });
  const quadratic = canonicalQuadratic(problem.objective.quadratic ?? [], columnIndex);
  if (quadratic.length > 0) {
    objective.add("+ [");
    quadratic.forEach((q, k) => {
      const product = q.var1 === q.var2 ? `${fileName(q.var1)} ^ 2` : `${fileName(q.var1)} * ${fileName(q.var2)}`;
      const term = signed(2 * sign * q.coef, product);
      objective.add(k === 0 && term.startsWith("+ ") ? term.slice(2) : term);
    });
    objective.add("] / 2");
  }
  if (plan.writtenConstant !== 0) objective.add(`${plan.writtenConstant < 0 ? "-" : "+"} ${formatNumber(Math.abs(plan.writtenConstant))}`);
  objective.end();

  out.push("Subject To");
  const rowNames: string[] = [];
  const fileRowNames: string[] = [];
  const used = new Set(plan.usedNames);
  /** One row as written: its file name, its original name, its terms, and what goes before (a range's lower side) and after them. */
  const writeRow = (name: string, { original, terms, head = "", tail }: { original: string; terms: Term[]; head?: string; tail: string }) => {
    const row = new Lines(out);
    row.add(`${name}:`);
    if (head) row.add(head);
    if (terms.length === 0) row.add(`0 ${names[0]}`); // LP has no empty expression
    for (const t of terms) row.add(signed(t.coef, fileName(t.var)));
    row.add(tail);
    row.end();
    rowNames.push(original);
    fileRowNames.push(name);
  };
  for (const { constraint, fileName: rowName } of plan.rows) {
    const terms = mergeLinearTerms(constraint.terms);
    const { lb, ub } = constraint;
    if (lb !== null && lb === ub) writeRow(rowName, { original: constraint.name, terms, tail: `= ${formatNumber(lb)}` });
    else if (lb === null) writeRow(rowName, { original: constraint.name, terms, tail: `<= ${formatNumber(ub!)}` });
    else if (ub === null) writeRow(rowName, { original: constraint.name, terms, tail: `>= ${formatNumber(lb)}` });
    else if (options.rangedRows === "split") {
      const lower = unusedName(`${rowName}_lo`, used);
      used.add(lower);
      const upper = unusedName(`${rowName}_up`, used);
      used.add(upper);
      writeRow(lower, { original: constraint.name, terms, tail: `>= ${formatNumber(lb)}` });
      writeRow(upper, { original: constraint.name, terms, tail: `<= ${formatNumber(ub)}` });
    } else writeRow(rowName, { original: constraint.name, terms, head: `${formatNumber(lb)} <=`, tail: `<= ${formatNumber(ub)}` });
  }

  const variables = problem.variables.map(writtenVariable);
  const bounds: string[] = [];
  variables.forEach((v, j) => {
    const name = names[j]!;
    if (v.type === "binary") return; // [0, 1] comes with the Binaries section
    if (v.lb === null && v.ub === null) bounds.push(` ${name} free`);
    else if (v.lb !== null && v.lb === v.ub) bounds.push(` ${name} = ${formatNumber(v.lb)}`);
    else if (v.ub === null) {
      if (v.lb !== 0) bounds.push(` ${name} >= ${formatNumber(v.lb!)}`);
    } else bounds.push(` ${v.lb === null ? "-inf" : formatNumber(v.lb)} <= ${name} <= ${formatNumber(v.ub)}`);
  });
  if (bounds.length > 0) {
    out.push("Bounds");
    appendLines(out, bounds);
  }
  for (const [section, type] of [
    ["Generals", "integer"],
    ["Binaries", "binary"],
  ] as const) {
    const members = names.filter((_, j) => variables[j]!.type === type);
    if (members.length === 0) continue;
    out.push(section);
    const list = new Lines(out);
    for (const name of members) list.add(name);
    list.end();
  }
  out.push("End", "");

  return {
    text: out.join("\n"),
    columnNames: plan.columnNames,
    fileColumnNames: names,
    rowNames,
    fileRowNames,
    objectiveSign: sign,
    omittedObjectiveConstant: plan.omittedObjectiveConstant,
  };
}
