import type { Constraint, Problem, VariableType } from "./schema.js";

/** Options both writers take. */
export interface WriteProblemOptions {
  /**
   * Name columns `C1..Cn` and rows `R1..Rm` in the file, so names from a modelling language (spaces,
   * brackets, keywords) never break a solver. Map results back with `columnNames`/`rowNames`.
   * Without it, a name the format cannot hold is an error.
   */
  safeNames?: boolean;
  /**
   * Leave the objective constant out of the file. CLI solvers disagree on its sign in MPS (glpsol
   * negates it) and glpsol's LP reader rejects it; add `omittedObjectiveConstant` back instead.
   */
  omitObjectiveConstant?: boolean;
  /**
   * "keep" (default) writes a maximisation as one. "minimize" writes max f as min −f, for readers
   * that ignore OBJSENSE (CBC 2.10 says "MAX found after OBJSENSE - Coin ignores") or reject it
   * (glpsol's MPS reader); multiply the solver's objective by `objectiveSign`.
   */
  sense?: "keep" | "minimize";
}

/** A written problem and what a caller needs to read a solver's answer about it. */
export interface WrittenProblem {
  text: string;
  /** Original variable names in column order (the problem's variable order). */
  columnNames: string[];
  /** The names the file uses for those columns (`C1..Cn` with safeNames, else the original ones). */
  fileColumnNames: string[];
  /**
   * Original constraint name of each row in the file, in file order. Free rows (no finite bound)
   * constrain nothing and are not written; with LP's `rangedRows: "split"` a name appears twice.
   */
  rowNames: string[];
  fileRowNames: string[];
  /** 1, or −1 when a maximisation was written as a minimisation. */
  objectiveSign: 1 | -1;
  /** The constant left out by omitObjectiveConstant (0 otherwise), in the problem's own sense. */
  omittedObjectiveConstant: number;
}

/** The problem's objective value from the objective a solver reports for the written file. */
export function originalObjective(written: WrittenProblem, solverObjective: number): number {
  return written.objectiveSign * solverObjective + written.omittedObjectiveConstant;
}

/** A variable as written: `binary` only with bounds exactly [0, 1]. */
export interface WrittenVariable {
  type: VariableType;
  lb: number | null;
  ub: number | null;
}

/**
 * Binary means integer in [0, 1]. A binary variable whose bounds narrow that (say fixed at 1) is
 * written as an integer with those bounds: BV in MPS and the Binaries section in LP would reset
 * them to [0, 1] in HiGHS. Reading it back gives an integer variable, the same set of values.
 */
export function writtenVariable(v: { type: VariableType; lb: number | null; ub: number | null }): WrittenVariable {
  if (v.type !== "binary") return v;
  const lb = Math.max(v.lb ?? -Infinity, 0);
  const ub = Math.min(v.ub ?? Infinity, 1);
  return lb === 0 && ub === 1 ? { type: "binary", lb: 0, ub: 1 } : { type: "integer", lb, ub };
}

export interface WriterPlan {
  columnNames: string[];
  fileColumnNames: string[];
  /** Constraints that are written (free rows dropped) and their file names. */
  rows: { constraint: Constraint; fileName: string }[];
  objectiveSign: 1 | -1;
  /** The constant to write into the file (already signed), 0 if omitted. */
  writtenConstant: number;
  omittedObjectiveConstant: number;
  /** Every name used for a column or a row, to choose other names (objective row, sets) that differ. */
  usedNames: Set<string>;
}

/**
 * What both writers decide the same way: file names (checked, or safe), which rows are written, and
 * the objective's sign and constant.
 */
/** `nameProblem` says why a name cannot be written in the format `formatName`, null when it can. */
export function planWrite(
  problem: Problem,
  {
    options,
    nameProblem,
    formatName,
  }: { options: WriteProblemOptions; nameProblem: (name: string, kind: "column" | "row") => string | null; formatName: string },
): WriterPlan {
  const safe = options.safeNames === true;
  const columnNames = problem.variables.map((v) => v.name);
  const check = (name: string, kind: "column" | "row") => {
    const problemWithName = nameProblem(name, kind);
    if (problemWithName !== null) {
      throw new Error(`${kind} name "${name}" cannot be written in ${formatName}: ${problemWithName}. Pass safeNames: true to write C1..Cn/R1..Rm instead.`);
    }
    return name;
  };
  const fileColumnNames = safe ? columnNames.map((_, j) => `C${j + 1}`) : columnNames.map((n) => check(n, "column"));
  const written = problem.constraints.filter((c) => c.lb !== null || c.ub !== null);
  const rows = written.map((constraint, i) => ({ constraint, fileName: safe ? `R${i + 1}` : check(constraint.name, "row") }));
  const objectiveSign: 1 | -1 = problem.sense === "maximize" && options.sense === "minimize" ? -1 : 1;
  const constant = problem.objective.constant;
  const omit = options.omitObjectiveConstant === true;
  return {
    columnNames,
    fileColumnNames,
    rows,
    objectiveSign,
    writtenConstant: omit ? 0 : objectiveSign * constant,
    omittedObjectiveConstant: omit ? constant : 0,
    usedNames: new Set([...fileColumnNames, ...rows.map((r) => r.fileName)]),
  };
}

/** `base`, or `base_1`, `base_2`, … whichever is not taken. */
export function unusedName(base: string, used: ReadonlySet<string>): string {
  if (!used.has(base)) return base;
  for (let i = 1; ; i++) if (!used.has(`${base}_${i}`)) return `${base}_${i}`;
}

/** Appends `lines` to `out` one by one: a spread (`out.push(...lines)`) overflows the call stack past ~120,000 lines. */
export function appendLines(out: string[], lines: readonly string[]): void {
  for (let i = 0; i < lines.length; i++) out.push(lines[i]!);
}
