import Table from "cli-table3";
import { createLogUpdate } from "log-update";
import type { ComparisonDetail, ComparisonRow, ExecutionView } from "../types.js";

/** A number as people read a solver's output: ten significant digits, no trailing noise; "-" for none. */
export function num(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return "-";
  if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
  return String(Number(value.toPrecision(10)));
}

export const pct = (gap: number | null | undefined): string => (gap === null || gap === undefined ? "-" : `${(gap * 100).toFixed(2)}%`);
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
/** A solver's own time, to the hundredth of a second. */
export const solverSeconds = (value: number | null | undefined): string => (value === null || value === undefined ? "-" : value.toFixed(2));

/** The latest point of a running search. */
export interface Live {
  primal: number | null;
  dual: number | null;
  gap: number | null;
  nodes: number | null;
  /** seconds since the solver started */
  time_seconds: number;
}

/** `highs  running  incumbent -9  bound -9.5  gap 5.26%  nodes 12  elapsed 3.2 s` */
export function progressLine({ solver, state, live, elapsedMs }: { solver: string; state: string; live: Live | undefined; elapsedMs: number }): string {
  const parts = [solver, state];
  if (live)
    parts.push(`incumbent ${num(live.primal)}`, `bound ${num(live.dual)}`, `gap ${pct(live.gap)}`, ...(live.nodes !== null ? [`nodes ${live.nodes}`] : []));
  parts.push(`elapsed ${seconds(elapsedMs)}`);
  return parts.join("  ");
}

/** The verdict block printed when a solve has ended. */
export function executionSummary(view: ExecutionView): string {
  const r = view.result;
  if (!r) return `${view.id}  ${view.status}${view.error_message ? `: ${view.error_message}` : ""}`;
  const lines = [
    `${view.id}  ${r.status}  (${r.solver_name}${r.solver_version ? ` ${r.solver_version}` : ""})`,
    `objective ${num(r.objective_value)}  bound ${num(r.dual_bound)}  gap ${pct(r.gap)}  solve ${solverSeconds(r.solve_time_seconds)} s  wall ${num(r.wall_time_ms)} ms`,
  ];
  return lines.join("\n");
}

const HEAD = ["solver", "status", "verdict", "objective", "bound", "gap", "time (s)"];

/** One row of the comparison table, with the live point of a row still running. */
function tableRow(row: ComparisonRow, live: Live | undefined): string[] {
  const running = row.status === "running" && live;
  return [
    row.solver_name,
    row.status,
    row.solver_status === "unsupported" ? `unsupported (${row.unsupported_reason})` : (row.solver_status ?? "-"),
    num(running ? live.primal : row.objective_value),
    num(running ? live.dual : row.dual_bound),
    pct(running ? live.gap : row.gap),
    running ? solverSeconds(live.time_seconds) : solverSeconds(row.solver_time_seconds),
  ];
}

/** The comparison as a table (cli-table3, no colour so captured output stays plain). */
export function comparisonTable(detail: ComparisonDetail, live: Map<string, Live> = new Map()): string {
  const table = new Table({ head: HEAD, style: { head: [], border: [] } });
  for (const row of detail.results) table.push(tableRow(row, row.execution_id ? live.get(row.execution_id) : undefined));
  const lines = [`${detail.id}  ${detail.status}  ${detail.problem_name}`, table.toString()];
  if (detail.agreement) {
    const a = detail.agreement;
    lines.push(
      `objectives agree: ${a.objectives_agree ? "yes" : "no"} (max delta ${num(a.max_objective_delta)})  solutions identical: ${a.solutions_identical ? "yes" : "no"}`,
    );
  }
  return lines.join("\n");
}

/**
 * Output that changes in place. On a terminal, log-update redraws the frame; elsewhere (a pipe, a
 * file, CI) each changed frame is appended, at most once a second unless `force` (a row finished), so
 * captured output reads as a log.
 */
export interface LiveOutput {
  update(frame: string, options?: { force?: boolean }): void;
  /** Ends the redrawing: a terminal keeps the last frame, or clears it when `clear` (the result follows in full). */
  done(options?: { clear?: boolean }): void;
}

export function liveOutput(stream: NodeJS.WriteStream, minIntervalMs = 1000): LiveOutput {
  if (stream.isTTY) {
    const log = createLogUpdate(stream, { showCursor: true });
    return { update: (frame) => log(frame), done: (options = {}) => (options.clear ? log.clear() : log.done()) };
  }
  let last = "";
  let lastAt = 0;
  return {
    update(frame, options = {}) {
      const now = Date.now();
      if (frame === last || (!options.force && now - lastAt < minIntervalMs)) return;
      last = frame;
      lastAt = now;
      stream.write(`${frame}\n`);
    },
    done() {},
  };
}
