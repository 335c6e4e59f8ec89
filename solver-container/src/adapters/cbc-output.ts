/**
 * Readers for what CBC 2.10 writes: the solution file of `solu <file>` and the log on stdout. Pure
 * functions over text, unit-tested on captured output. Numbers are in the sense of the file CBC was
 * given (the adapter always writes a minimization).
 */

export type CbcSolutionStatus =
  | "optimal"
  /** "Infeasible": the LP (or a MILP's LP relaxation) was declared primal infeasible by simplex. */
  | "infeasible"
  /** "Integer infeasible": branch and bound found no integer point. */
  | "integer_infeasible"
  | "unbounded"
  | "stopped_on_time"
  | "stopped_on_iterations"
  | "stopped_on_difficulties"
  | "stopped_on_ctrl_c"
  | "unknown";

export interface CbcSolutionFile {
  status: CbcSolutionStatus;
  /** The header's words before " - objective value". */
  headline: string;
  /** The header's objective; for "(no integer solution - continuous used)" it is the LP relaxation's. */
  objective: number | null;
  /** True when the values are a real incumbent, not the relaxation CBC falls back to. */
  hasIncumbent: boolean;
  /** Column values by the name in the file (CBC lists nonzero columns only). */
  values: Map<string, number>;
}

const HEADLINES: [RegExp, CbcSolutionStatus][] = [
  [/^optimal/i, "optimal"],
  [/^integer infeasible/i, "integer_infeasible"],
  [/^infeasible/i, "infeasible"],
  [/^unbounded/i, "unbounded"],
  [/^stopped on time/i, "stopped_on_time"],
  [/^stopped on iterations/i, "stopped_on_iterations"],
  [/^stopped on difficulties/i, "stopped_on_difficulties"],
  [/^stopped on ctrl-c/i, "stopped_on_ctrl_c"],
];

/** `printingOptions` normal: "[**] index name value reduced-cost"; `**` marks an infeasible entry. */
const VALUE_LINE = /^\s*(?:\*\*\s*)?\d+\s+(\S+)\s+(\S+)(?:\s+\S+)?\s*$/;

export function parseCbcSolution(text: string): CbcSolutionFile {
  const lines = text.split(/\r?\n/);
  const header = (lines[0] ?? "").trim();
  const marker = header.lastIndexOf(" - objective value");
  const headline = marker >= 0 ? header.slice(0, marker).trim() : header;
  const objectiveText = marker >= 0 ? header.slice(marker + " - objective value".length).trim() : "";
  const objective = objectiveText === "" ? null : Number(objectiveText);
  const status = HEADLINES.find(([re]) => re.test(headline))?.[1] ?? "unknown";
  const values = new Map<string, number>();
  for (const line of lines.slice(1)) {
    const m = VALUE_LINE.exec(line);
    if (m) values.set(m[1]!, Number(m[2]));
  }
  const relaxationOnly = /no integer solution/i.test(headline);
  const hasIncumbent = !relaxationOnly && (status === "optimal" || status.startsWith("stopped_on"));
  return { status, headline, objective: objective !== null && Number.isFinite(objective) ? objective : null, hasIncumbent, values };
}

export interface CbcSavedSolution {
  objective: number;
  rowActivities: number[];
  /** Row duals y with reduced costs c − Aᵀy, in the file's (minimisation) sense. */
  rowDuals: number[];
  columnValues: number[];
}

/**
 * The file of CBC's `saveSolution` command: int32 rows, int32 columns, then doubles — the objective,
 * row activities, row duals, column values, column reduced costs (machine byte order; little-endian on
 * every machine this runs on). Null when the file is not that shape.
 */
export function parseCbcSavedSolution(data: Uint8Array): CbcSavedSolution | null {
  if (data.byteLength < 16) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const rows = view.getInt32(0, true);
  const columns = view.getInt32(4, true);
  if (rows < 0 || columns < 0 || data.byteLength !== 8 + 8 * (1 + 2 * rows + 2 * columns)) return null;
  const number = (k: number) => view.getFloat64(8 + 8 * k, true);
  const slice = (start: number, count: number) => Array.from({ length: count }, (_, k) => number(start + k));
  return { objective: number(0), rowActivities: slice(1, rows), rowDuals: slice(1 + rows, rows), columnValues: slice(1 + 2 * rows, columns) };
}

export interface CbcLogSummary {
  version: string | null;
  /** "Result - ..." of a MILP run (absent for a pure LP). */
  result: string | null;
  objective: number | null;
  /** "Lower bound:" of the summary (printed with 3 decimals only). */
  lowerBound: number | null;
  /** "best possible" of a partial search (Cbc0005I), in full precision. */
  bestPossible: number | null;
  nodes: number | null;
  iterations: number | null;
  /** CBC's own wall-clock measure of the solve (seconds). */
  wallSeconds: number | null;
  /** Settings CBC echoed as changed ("seconds was changed from 1e+100 to 60"), by CBC's name. */
  echoed: Record<string, string>;
  /** Lines where CBC says it could not tell infeasible from unbounded (never a proof of either). */
  undecidedRemarks: string[];
  /** CBC's preprocessing, not its search, declared the problem infeasible or unbounded. */
  preprocessingVerdict: boolean;
}

const num = (s: string | undefined): number | null => {
  if (s === undefined) return null;
  const v = Number(s);
  return Number.isFinite(v) ? v : null;
};

function lastMatch(text: string, re: RegExp): RegExpExecArray | null {
  const global = new RegExp(re.source, re.flags.includes("g") ? re.flags : `${re.flags}g`);
  let last: RegExpExecArray | null = null;
  for (let m = global.exec(text); m !== null; m = global.exec(text)) last = m;
  return last;
}

export function parseCbcLog(log: string): CbcLogSummary {
  const echoed: Record<string, string> = {};
  for (const m of log.matchAll(/^(\w+) was changed from \S+ to (\S+)\s*$/gm)) echoed[m[1]!] = m[2]!;
  for (const m of log.matchAll(/^Option for (\w+) changed from \S+ to (\S+)\s*$/gm)) echoed[m[1]!] = m[2]!;

  const result = lastMatch(log, /^Result - (.+?)\s*$/m)?.[1] ?? null;
  let objective = num(lastMatch(log, /^Objective value:\s+(\S+)/m)?.[1]);
  let iterations = num(lastMatch(log, /^Total iterations:\s+(\d+)/m)?.[1]);
  let wallSeconds = num(lastMatch(log, /^Time \(Wallclock [Ss]econds\):\s+(\S+)/m)?.[1]);
  if (result === null || result.startsWith("Linear relaxation")) {
    // An LP (or a MILP stopped at its relaxation): "Optimal objective X - N iterations time T", or
    // "PrimalInfeasible objective ..."; the summary block, if any, counts no iterations.
    const lp = lastMatch(log, /^(\w+) objective (\S+) - (\d+) iterations/m);
    if (lp) {
      if (lp[1] === "Optimal") objective = num(lp[2]);
      iterations = num(lp[3]);
    }
    wallSeconds = num(lastMatch(log, /^Total time \(CPU seconds\):\s+\S+\s+\(Wallclock seconds\):\s+(\S+)/m)?.[1]) ?? wallSeconds;
  }
  const undecidedRemarks = [...log.matchAll(/^.*(?:infeasible or unbounded|thinks problem is unbounded).*$/gim)].map((m) => m[0].trim());
  return {
    version: /^Version:\s*(\S+)/m.exec(log)?.[1] ?? null,
    result,
    objective,
    lowerBound: num(lastMatch(log, /^Lower bound:\s+(\S+)/m)?.[1]),
    bestPossible: num(lastMatch(log, /^Cbc0005I Partial search - best objective \S+ \(best possible (\S+)\)/m)?.[1]),
    nodes: num(lastMatch(log, /^Enumerated nodes:\s+(\d+)/m)?.[1]),
    iterations,
    wallSeconds,
    echoed,
    undecidedRemarks,
    preprocessingVerdict: /^Pre-processing says infeasible/m.test(log),
  };
}

export interface CbcProgressUpdate {
  incumbent?: number;
  bound?: number;
  nodes?: number;
}

/** 1e50 is CBC's "no solution yet". */
const realValue = (s: string): number | undefined => {
  const v = Number(s);
  return Number.isFinite(v) && Math.abs(v) < 1e40 ? v : undefined;
};

/** One streamed log line → what it says about the incumbent, the bound and the node count. */
export function parseCbcProgressLine(line: string): CbcProgressUpdate | null {
  let m = /^Cbc0010I After (\d+) nodes, \d+ on tree, (\S+) best solution, best possible (\S+)/.exec(line);
  if (m) return { nodes: Number(m[1]), incumbent: realValue(m[2]!), bound: realValue(m[3]!) };
  m = /^Cbc00(?:04|12)I Integer solution of (\S+) found/.exec(line);
  if (m) return { incumbent: realValue(m[1]!) };
  m = /^Cbc0013I At root node, .* changed objective from \S+ to (\S+)/.exec(line);
  if (m) return { bound: realValue(m[1]!) };
  m = /^Cbc0005I Partial search - best objective (\S+) \(best possible (\S+)\)/.exec(line);
  if (m) return { incumbent: realValue(m[1]!), bound: realValue(m[2]!) };
  return null;
}
