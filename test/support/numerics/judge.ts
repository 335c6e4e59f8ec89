import type { Problem } from "../../../functions/core/problem/schema.js";
import { checkSolution, objectiveOf } from "../../../functions/core/solvers/checker.js";
import { FAMILIES, type NumericsCase, type NumericsFamily } from "./cases.js";

/**
 * How the numerics suite judges the service's answer against a case's known verdict and optimum — on its
 * own, whatever the solver or the gate said about it.
 *
 *  - wrong: `infeasible` or `unbounded` on a feasible model; `optimal` without a point, or off the known
 *    optimum; any answer whose point breaks the model or whose objective is better than the optimum; an
 *    objective that is not its point's; `optimal`/`feasible` on an infeasible model.
 *  - honest non-answer: `error` (its point, if any, is not judged: the gate keeps a rejected raw point
 *    readable there), `feasible` and `time_limit` with a point that holds (or none).
 *  - right: the known verdict, and for an optimum the known value at a point that holds.
 *
 * Tolerances, stated once:
 *  - a point holds when `checkSolution` finds nothing at 1e-6 (bounds and sides: 1e-6·max(1, |side|);
 *    integrality: 1e-6), allowing a row the roundoff of its own terms, 1e-12·Σ|a_j·x_j|;
 *  - objectives agree within 1e-6·max(1, |optimum|) + 1e-12·Σ|c_j·x_j|.
 * The side-relative row tolerance does not see a big-M row broken by less than 1e-6·M when M sits on its
 * side; the known optimum and verdict do (such a point gains objective or makes an infeasible model look
 * feasible), which is why every case comes with both.
 */
export const POINT_TOLERANCE = 1e-6;
export const OBJECTIVE_TOLERANCE = 1e-6;
const ROUNDOFF = 1e-12;

export type Judgement = "right" | "wrong" | "error" | "feasible" | "time_limit";

/** What made an answer wrong: shrinking keeps the kind, so a counterexample shows the same fault. */
export type WrongKind =
  | "false verdict" // infeasible or unbounded on a feasible model, unbounded on an infeasible one
  | "broken point" // the point breaks a bound, a row or integrality beyond the tolerances
  | "objective not its point's" // the reported objective differs from the one recomputed at the point
  | "better than the optimum" // a point that holds within tolerance, with an objective past the optimum
  | "off the optimum" // optimal at a point that holds, worse than the optimum
  | "point on an infeasible model" // optimal or feasible where no point exists
  | "no point"; // optimal or feasible without a point

export interface Judged {
  judgement: Judgement;
  kind: WrongKind | null;
  why: string;
}

/** The fields of a solve response the judge reads. */
export interface Answer {
  status: string;
  objective_value: number | null;
  solution: Record<string, number> | null;
  error_message: string | null;
}

const wrong = (kind: WrongKind, why: string): Judged => ({ judgement: "wrong", kind, why: `${kind}: ${why}` });
const honest = (judgement: Exclude<Judgement, "wrong">, why: string): Judged => ({ judgement, kind: null, why });

export function judgeAnswer(c: Pick<NumericsCase, "expected" | "optimum">, problem: Problem, answer: Answer): Judged {
  const { status, solution } = answer;
  const said = `${status}${answer.objective_value !== null ? ` at ${answer.objective_value}` : ""}`;
  if (status === "error") return honest("error", `error: ${answer.error_message ?? "no message"}`);
  if (status === "infeasible" || status === "unbounded") {
    return c.expected === "infeasible" && status === "infeasible"
      ? honest("right", "infeasible, as constructed")
      : wrong("false verdict", `${status} on a model ${c.expected === "optimal" ? `whose optimum is ${c.optimum}` : "that is infeasible"}`);
  }
  if (solution) {
    const broken = brokenBy(problem, solution);
    if (broken) return wrong("broken point", `${said}, at a point that breaks the model: ${broken}`);
    const recomputed = objectiveOf(problem, solution);
    const allowed = objectiveAllowance(problem, solution, c.optimum ?? recomputed);
    if (answer.objective_value !== null && !(Math.abs(answer.objective_value - recomputed) <= allowed)) {
      return wrong("objective not its point's", `${said}, but its point's objective is ${recomputed}`);
    }
    if (c.expected === "infeasible") return wrong("point on an infeasible model", `${said}, at a point within tolerance of every row`);
    const sign = problem.sense === "maximize" ? -1 : 1;
    if (sign * (recomputed - c.optimum!) < -allowed) return wrong("better than the optimum", `${said}, past the optimum ${c.optimum}`);
    if (status === "optimal" && !(Math.abs(recomputed - c.optimum!) <= allowed)) return wrong("off the optimum", `${said}, where the optimum is ${c.optimum}`);
  } else if (status === "optimal" || status === "feasible") {
    return wrong("no point", said);
  }
  if (status === "optimal") return honest("right", "the optimum, at a point that holds");
  if (status === "feasible" || status === "time_limit") return honest(status, said);
  return wrong("false verdict", `unknown status ${status}`);
}

/** The first violation beyond the tolerances (with its amount), or null. */
function brokenBy(problem: Problem, solution: Record<string, number>): string | null {
  const magnitude = new Map(problem.constraints.map((row) => [row.name, row.terms.reduce((s, t) => s + Math.abs(t.coef * (solution[t.var] ?? 0)), 0)]));
  const violations = checkSolution(problem, solution, { tolerance: POINT_TOLERANCE }).filter(
    (v) => v.kind !== "constraint" || v.amount > POINT_TOLERANCE + ROUNDOFF * (magnitude.get(v.name) ?? 0),
  );
  return violations.length === 0 ? null : violations.map((v) => v.message).join("; ");
}

function objectiveAllowance(problem: Problem, solution: Record<string, number>, optimum: number): number {
  const magnitude = problem.objective.terms.reduce((s, t) => s + Math.abs(t.coef * (solution[t.var] ?? 0)), Math.abs(problem.objective.constant));
  return OBJECTIVE_TOLERANCE * Math.max(1, Math.abs(optimum)) + ROUNDOFF * magnitude;
}

/** One solver's counts: judgements overall and wrong answers per family, with the first wrong case of each family. */
export class Tally {
  readonly counts: Record<Judgement, number> = { right: 0, wrong: 0, error: 0, feasible: 0, time_limit: 0 };
  readonly wrongByFamily = new Map<NumericsFamily, number>();
  /** "family: kind" → count. */
  readonly wrongByKind = new Map<string, number>();
  readonly firstWrong = new Map<NumericsFamily, { run: number; kind: WrongKind; why: string }>();
  seconds = 0;

  note(run: number, c: NumericsCase, judged: Judged): void {
    this.counts[judged.judgement]++;
    if (judged.kind === null) return;
    this.wrongByFamily.set(c.family, (this.wrongByFamily.get(c.family) ?? 0) + 1);
    const key = `${c.family}: ${judged.kind}`;
    this.wrongByKind.set(key, (this.wrongByKind.get(key) ?? 0) + 1);
    if (!this.firstWrong.has(c.family)) this.firstWrong.set(c.family, { run, kind: judged.kind, why: judged.why });
  }

  get total(): number {
    return Object.values(this.counts).reduce((s, n) => s + n, 0);
  }
}

/** The table the suite prints: one line per solver. */
export function tallyTable(rows: { label: string; tally: Tally }[]): string {
  const head = ["solver", "cases", "right", "wrong", "error", "feasible", "time_limit", "seconds", "wrong by family"];
  const lines = rows.map(({ label, tally }) => [
    label,
    String(tally.total),
    String(tally.counts.right),
    String(tally.counts.wrong),
    String(tally.counts.error),
    String(tally.counts.feasible),
    String(tally.counts.time_limit),
    tally.seconds.toFixed(1),
    FAMILIES.filter((f) => tally.wrongByFamily.has(f))
      .map((f) => {
        const kinds = [...tally.wrongByKind].filter(([key]) => key.startsWith(`${f}: `)).map(([key, n]) => `${key.slice(f.length + 2)} ${n}`);
        return `${f} ${tally.wrongByFamily.get(f)} (${kinds.join(", ")})`;
      })
      .join("; ") || "-",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 || i === cells.length - 1 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ");
  return [format(head), ...lines.map(format)].join("\n");
}

/** A case as a few lines of LP text, for a counterexample in a failure message or the printed report. */
export function describeCase(c: NumericsCase): string {
  const p = c.problem;
  const linear = (terms: { var: string; coef: number }[]) =>
    terms.map((t, i) => `${t.coef < 0 ? "- " : i === 0 ? "" : "+ "}${Math.abs(t.coef) === 1 ? "" : `${Math.abs(t.coef)} `}${t.var}`).join(" ") || "0";
  const constant = p.objective?.constant ? ` + ${p.objective.constant}` : "";
  const side = (lb: number | null | undefined, ub: number | null | undefined) =>
    lb !== null && lb !== undefined && ub !== null && ub !== undefined
      ? lb === ub
        ? `= ${lb}`
        : `in [${lb}, ${ub}]`
      : lb !== null && lb !== undefined
        ? `>= ${lb}`
        : `<= ${ub}`;
  const bounds = p.variables.map((v) => {
    if (v.type === "binary") return `${v.name} binary`;
    const lb = v.lb === undefined ? 0 : v.lb;
    const ub = v.ub ?? null;
    return `${v.name}${v.type === "integer" ? " integer" : ""} in [${lb ?? "-inf"}, ${ub ?? "inf"}]`;
  });
  return [
    `${c.family}, M = ${c.bigM}${c.widening ? `, widened ${JSON.stringify(c.widening)}` : ""}: ${c.expected === "optimal" ? `optimum ${c.optimum}` : "infeasible"}`,
    `  ${p.sense === "maximize" ? "max" : "min"} ${linear(p.objective?.terms ?? [])}${constant}`,
    ...(p.constraints ?? []).map((row) => `  ${row.name}: ${linear(row.terms)} ${side(row.lb, row.ub)}`),
    `  ${bounds.join(", ")}`,
  ].join("\n");
}
