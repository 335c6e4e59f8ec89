/**
 * Readers for what glpsol (GLPK 5.0) writes: the raw solution of `-w <file>` and the terminal log.
 * Pure functions over text, unit-tested on captured output. Numbers are in the sense of the file glpsol
 * was given (the adapter always writes a minimization without the objective constant).
 *
 * Raw solution format (glpk's glp_write_sol / glp_write_mip):
 *   c ...                         comments
 *   s bas <m> <n> <p> <d> <obj>   basic (simplex) solution; p, d ∈ u undefined, f feasible, i infeasible, n none
 *   s ipt <m> <n> <s> <obj>       interior-point solution; s ∈ o optimal, i infeasible, n no feasible, u undefined
 *   s mip <m> <n> <s> <obj>       MIP solution; s ∈ o optimal, f feasible, n no feasible, u undefined
 *   i <row> ...  /  j <col> <st> <prim> <dual> (basic), j <col> <prim> <dual> (interior), j <col> <value> (MIP)
 *   e o f
 */

export type GlpkSolutionState = "undefined" | "feasible" | "infeasible" | "no_feasible" | "optimal";

const STATE: Record<string, GlpkSolutionState> = { u: "undefined", f: "feasible", i: "infeasible", n: "no_feasible", o: "optimal" };

export interface GlpkRawSolution {
  /** lp: simplex (basic) solution; ipt: interior point; mip: integer. */
  kind: "lp" | "ipt" | "mip";
  rows: number;
  columns: number;
  /** LP: primal state; interior point and MIP: the solution state. */
  primal: GlpkSolutionState;
  /** LP only: dual state ("no_feasible" with a feasible primal = unbounded). */
  dual: GlpkSolutionState | null;
  objective: number;
  /** Column values in column order (index 0 = column 1). */
  values: number[];
  /** Basic and interior-point solutions: row duals y (reduced costs c − Aᵀy) in row order; empty for MIP. */
  rowDuals: number[];
}

export function parseGlpkRaw(text: string): GlpkRawSolution {
  let head: string[] | null = null;
  const values: number[] = [];
  const rowDuals: number[] = [];
  for (const line of text.split(/\r?\n/)) {
    const f = line.trim().split(/\s+/);
    if (f[0] === "s") head = f;
    else if (f[0] === "i" && head && head[1] !== "mip") rowDuals[Number(f[1]) - 1] = Number(head[1] === "bas" ? f[4] : f[3]);
    else if (f[0] === "j" && head) {
      const index = Number(f[1]) - 1;
      // LP lines carry a status letter before the value; MIP lines only the value.
      values[index] = Number(head[1] === "bas" ? f[3] : f[2]);
    }
  }
  if (!head) throw new Error("glpsol raw solution has no 's' line");
  if (head[1] === "bas") {
    return {
      kind: "lp",
      rows: Number(head[2]),
      columns: Number(head[3]),
      primal: STATE[head[4]!] ?? "undefined",
      dual: STATE[head[5]!] ?? "undefined",
      objective: Number(head[6]),
      values,
      rowDuals,
    };
  }
  if (head[1] === "mip" || head[1] === "ipt") {
    return {
      kind: head[1],
      rows: Number(head[2]),
      columns: Number(head[3]),
      primal: STATE[head[4]!] ?? "undefined",
      dual: null,
      objective: Number(head[5]),
      values,
      rowDuals,
    };
  }
  throw new Error(`glpsol raw solution of an unexpected kind "${head[1]}"`);
}

/**
 * glpsol's one-line verdicts, in capitals in its log (every one GLPK 5.0 prints). For a MILP, the
 * simplex's words are about the LP relaxation.
 */
export type GlpkMessage =
  /** Simplex, interior point, or either presolver found an optimum. */
  | "optimal_lp"
  | "integer_optimal"
  /** Simplex found an improving ray from a feasible point (exact simplex: "PROBLEM HAS UNBOUNDED SOLUTION"). */
  | "lp_unbounded"
  /** Simplex's phase 1 (or the exact simplex) ended without a feasible point. */
  | "lp_infeasible"
  /** The LP or MIP presolver found the rows contradictory. */
  | "no_primal_feasible"
  /** The dual is infeasible (presolver, dual simplex, a MILP's relaxation): infeasible or unbounded. */
  | "no_dual_feasible"
  /** Interior point: neither a primal nor a dual feasible point — infeasible or unbounded. */
  | "no_primal_dual_feasible"
  | "no_integer_feasible"
  | "time_limit"
  | "iteration_limit"
  | "objective_limit"
  | "mip_gap"
  /** Numerical trouble or an interior point method that did not converge. */
  | "numerical_failure";

const MESSAGES: [RegExp, GlpkMessage][] = [
  [/^OPTIMAL (?:LP )?SOLUTION FOUND/, "optimal_lp"],
  [/^INTEGER OPTIMAL SOLUTION FOUND/, "integer_optimal"],
  [/^(?:LP HAS UNBOUNDED PRIMAL SOLUTION|PROBLEM HAS UNBOUNDED SOLUTION)/, "lp_unbounded"],
  [/^(?:LP HAS NO PRIMAL FEASIBLE SOLUTION|PROBLEM HAS NO FEASIBLE SOLUTION)/, "lp_infeasible"],
  [/^PROBLEM HAS NO PRIMAL FEASIBLE SOLUTION/, "no_primal_feasible"],
  [/^(?:PROBLEM|LP RELAXATION|LP) HAS NO DUAL FEASIBLE SOLUTION/, "no_dual_feasible"],
  [/^PROBLEM HAS NO FEASIBLE PRIMAL\/DUAL SOLUTION/, "no_primal_dual_feasible"],
  [/^PROBLEM HAS NO INTEGER FEASIBLE SOLUTION/, "no_integer_feasible"],
  [/^TIME LIMIT EXCEEDED/, "time_limit"],
  [/^ITERATIONS? LIMIT EXCEEDED/, "iteration_limit"],
  [/^OBJECTIVE (?:LOWER|UPPER) LIMIT REACHED/, "objective_limit"],
  [/^RELATIVE MIP GAP TOLERANCE REACHED/, "mip_gap"],
  [/^(?:NUMERIC INSTABILITY|NO CONVERGENCE); SEARCH TERMINATED/, "numerical_failure"],
];

/**
 * What a glpsol run claims, from its raw solution and its log together (with the presolver on, a
 * non-optimal LP leaves the raw solution undefined and only the log tells). The adapter proves every
 * claim but `optimal` and `integer_infeasible` before it reports one:
 *
 *  - optimal: the raw solution is a proved optimum (basic f/f, interior o, MIP o, or a MIP incumbent
 *    within the gap tolerance);
 *  - integer_feasible: a MIP incumbent, the search stopped for another reason than time;
 *  - integer_infeasible: a MIP with no integer point, by a finished search or the MIP presolver;
 *  - infeasible: the LP, or a MILP's relaxation, declared infeasible by simplex or the LP presolver;
 *  - unbounded: simplex found a ray from a feasible point (for a MILP: of its relaxation);
 *  - infeasible_or_unbounded: the dual is infeasible, which leaves both open;
 *  - time_limit; unknown: anything else (numerical trouble, an iteration limit, a crash).
 */
export type GlpkClaim =
  | "optimal"
  | "integer_feasible"
  | "integer_infeasible"
  | "infeasible"
  | "unbounded"
  | "infeasible_or_unbounded"
  | "time_limit"
  | "unknown";

export function glpkClaim(raw: GlpkRawSolution | null, log: Pick<GlpkLogSummary, "messages">): GlpkClaim {
  const said = (kind: GlpkMessage) => log.messages.some((m) => m.kind === kind);
  if (said("time_limit")) return "time_limit";
  if (raw === null) return "unknown";
  if (raw.kind === "lp" && raw.primal === "feasible" && raw.dual === "feasible") return "optimal";
  if (raw.kind === "ipt" && raw.primal === "optimal") return "optimal";
  if (raw.kind === "mip") {
    if (raw.primal === "optimal" || (raw.primal === "feasible" && said("mip_gap"))) return "optimal";
    if (raw.primal === "feasible") return "integer_feasible";
    // Written by the MIP presolver or a finished search, both integer reasoning (a relaxation that
    // simplex found infeasible before the integer stage leaves the MIP solution undefined instead).
    if (raw.primal === "no_feasible") return "integer_infeasible";
  }
  if (said("lp_infeasible") || said("no_primal_feasible") || (raw.kind === "lp" && raw.primal === "no_feasible")) return "infeasible";
  if (said("lp_unbounded") || (raw.kind === "lp" && raw.primal === "feasible" && raw.dual === "no_feasible")) return "unbounded";
  if (said("no_dual_feasible") || said("no_primal_dual_feasible") || (raw.kind === "ipt" && raw.primal === "no_feasible")) return "infeasible_or_unbounded";
  return "unknown";
}

export interface GlpkLogSummary {
  version: string | null;
  /** Every verdict line, in order (an LP relaxation's comes before the MIP's). */
  messages: { kind: GlpkMessage; text: string }[];
  /** Simplex iterations: the counter of the last progress line. */
  iterations: number | null;
  /** MIP: the last `+` line's incumbent, bound and nodes. */
  incumbent: number | null;
  bound: number | null;
  nodes: number | null;
  /** glpsol's own "Time used" (0.1 s resolution). */
  timeUsedSeconds: number | null;
  /** The command line glpsol echoes ("Parameter(s) specified in the command line"). */
  echoedArgs: string | null;
}

export interface GlpkProgressUpdate {
  incumbent: number | null;
  bound: number | null;
  nodes: number | null;
  iterations: number;
}

/**
 * One MIP progress line: `+ <iter>: mip = <incumbent | not found yet> >= <bound | -inf | tree is empty>
 * [gap%] (<active>; <done>)`, or `+ <iter>: >>>>> <incumbent> >= <bound> ...` for a new incumbent. An
 * empty tree means the search is complete: the bound is the incumbent.
 */
export function parseGlpkProgressLine(line: string): GlpkProgressUpdate | null {
  // The gap is "1.2%", or "< 0.1%" once it is below a tenth of a percent (missing that form left the
  // bound at an earlier line's: bell5's last bound 8963733.9 where glpsol ended at 8966405.6).
  const m = /^\+\s*(\d+):\s+(?:mip =|>>>>>)\s+(not found yet|\S+)\s+[<>]=\s+(tree is empty|[-+]?inf|\S+)(?:\s+<?\s*\S+%)?\s+\((\d+);\s*(\d+)\)/.exec(
    line.trim(),
  );
  if (!m) return null;
  const incumbent = m[2] === "not found yet" ? null : Number(m[2]);
  const bound = m[3] === "tree is empty" ? incumbent : /inf/.test(m[3]!) ? null : Number(m[3]);
  return { iterations: Number(m[1]), incumbent, bound, nodes: Number(m[5]) };
}

/** "Solution found by heuristic: 27576": an incumbent (of the file's minimisation) between progress lines. */
export function parseGlpkHeuristicLine(line: string): number | null {
  const m = /^Solution found by heuristic:\s+(\S+)/.exec(line.trim());
  if (!m) return null;
  const value = Number(m[1]);
  return Number.isFinite(value) ? value : null;
}

/** glpsol wraps a long command line over several lines, each indented by one space. */
function echoedCommandLine(lines: string[], start: number): string {
  const parts: string[] = [];
  for (let i = start; i < lines.length && /^ \S/.test(lines[i]!); i++) parts.push(lines[i]!.trim());
  return parts.join(" ");
}

export function parseGlpkLog(log: string): GlpkLogSummary {
  const messages: GlpkLogSummary["messages"] = [];
  let iterations: number | null = null;
  let last: GlpkProgressUpdate | null = null;
  let echoIndex = -1;
  const lines = log.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.trim();
    const kind = MESSAGES.find(([re]) => re.test(line))?.[1];
    if (kind) messages.push({ kind, text: line });
    const progress = parseGlpkProgressLine(line);
    if (progress) {
      last = progress;
      iterations = progress.iterations;
      return;
    }
    // Simplex lines: "*   471: obj = ..." or "     26: obj = ..." (the star marks phase 2).
    const simplex = /^\*?\s*(\d+):\s+obj\s*=/.exec(line);
    if (simplex) iterations = Number(simplex[1]);
    if (/^Parameter\(s\) specified in the command line:/.test(line)) echoIndex = i + 1;
  });
  const final = last as GlpkProgressUpdate | null;
  return {
    version: /GLPK LP\/MIP Solver\s+(\S+)/.exec(log)?.[1] ?? null,
    messages,
    iterations,
    incumbent: final?.incumbent ?? null,
    bound: final?.bound ?? null,
    nodes: final?.nodes ?? null,
    timeUsedSeconds: (() => {
      const m = [...log.matchAll(/^Time used:\s+(\S+)\s+secs/gm)];
      return m.length ? m.reduce((s, x) => s + Number(x[1]), 0) : null;
    })(),
    echoedArgs: echoIndex >= 0 ? echoedCommandLine(lines, echoIndex) : null,
  };
}
