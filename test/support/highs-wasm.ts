import { writeLp } from "../../functions/core/problem/lp.js";
import type { Problem } from "../../functions/core/problem/schema.js";
import { originalObjective } from "../../functions/core/problem/write-common.js";

/**
 * An independent solver for tests: HiGHS's WebAssembly build (npm `highs`), fed CPLEX LP text from the
 * product's LP writer. Generated names such as `x[a,b]` are not LP names, so the file uses safe names
 * and the answer is mapped back; HiGHS 1.15 aborts on ranged rows, so they are written as two rows.
 */

export interface HighsOutcome {
  status: string;
  /** Objective of the problem as given, constant term included. */
  objective: number;
  values: Record<string, number>;
}

interface HighsSolver {
  solve(lp: string): { Status: string; ObjectiveValue: number; Columns: Record<string, { Primal: number }> };
}

let loaded: Promise<HighsSolver> | null = null;

async function highs(): Promise<HighsSolver> {
  loaded ??= import("highs").then(async (module) => (await module.default()) as unknown as HighsSolver);
  return loaded;
}

export async function solveWithHighs(problem: Problem): Promise<HighsOutcome> {
  const written = writeLp(problem, { safeNames: true, rangedRows: "split", omitObjectiveConstant: true });
  const result = (await highs()).solve(written.text);
  const values: Record<string, number> = {};
  written.fileColumnNames.forEach((fileName, j) => {
    const column = result.Columns[fileName];
    if (column !== undefined) values[written.columnNames[j]!] = column.Primal;
  });
  return { status: result.Status, objective: originalObjective(written, result.ObjectiveValue), values };
}
