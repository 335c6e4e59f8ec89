import type { IncumbentClient } from "../client.js";
import { StreamEndedError } from "../events.js";
import { readProblemFile } from "../node.js";
import type { ComparisonDetail, ExecutionView, Problem, SolveRequest, SolveSettings, SolverChoice } from "../types.js";
import { comparisonExit, executionExit } from "./exit-codes.js";
import { raceSummary, watchRace } from "./race.js";
import { comparisonTable, executionSummary, type Live, liveOutput, progressLine } from "./render.js";

/** The solvers `--solver` takes; a solver the API adds and this list lacks fails to compile below. */
export const SOLVER_CHOICES = ["auto", "race", "scip", "highs", "cbc", "glpk", "jaos"] as const satisfies readonly SolverChoice[];
const everySolverListed: Exclude<SolverChoice, (typeof SOLVER_CHOICES)[number]> extends never ? true : false = true;
void everySolverListed;

export interface Io {
  out: NodeJS.WriteStream;
  err: NodeJS.WriteStream;
}

export interface RunOptions {
  timeLimit?: number;
  gap?: number;
  watch: boolean;
  json: boolean;
}

const settingsOf = (o: RunOptions): SolveSettings | undefined =>
  o.timeLimit === undefined && o.gap === undefined
    ? undefined
    : { ...(o.timeLimit !== undefined ? { time_limit_seconds: o.timeLimit } : {}), ...(o.gap !== undefined ? { gap_tolerance: o.gap } : {}) };

/** The file parsed by the service (it reads gzip itself): the problem ready to send. */
async function problemOf(client: IncumbentClient, file: string): Promise<{ problem: Problem; filename: string }> {
  const upload = await readProblemFile(file);
  const preview = await client.previewFile(upload);
  return { problem: preview.problem, filename: upload.filename ?? file };
}

const json = (value: unknown) => `${JSON.stringify(value)}\n`;

/** A stream that opened but kept ending before its final event (not a refusal by the service). */
const isStreamDrop = (error: unknown): error is StreamEndedError => error instanceof StreamEndedError;

type RaceSolvers = NonNullable<SolveRequest["race"]>["solvers"];

/**
 * `incumbent solve FILE`: queue the solve, watch it if asked, print the verdict; the exit code is the
 * verdict's. `race` (from `--race [solvers]` or `--solver race`) names the entrants, or is true for the
 * service's default entrants.
 */
export async function solveCommand(
  client: IncumbentClient,
  { file, solver, race, ...options }: RunOptions & { file: string; solver: SolverChoice; race?: string[] | true },
  io: Io,
): Promise<number> {
  const { problem } = await problemOf(client, file);
  const settings = settingsOf(options);
  const racing = race !== undefined || solver === "race";
  const entrants = Array.isArray(race) ? { race: { solvers: race as RaceSolvers } } : {};
  const queued = await client.submit({ problem, solver_name: racing ? "race" : solver, ...entrants, ...(settings ? { settings } : {}) });
  if (racing) {
    const ended = options.watch
      ? await watchRace(client, queued.execution_id, { ...options, io })
      : await client.waitForExecution(queued.execution_id, { intervalMs: 500 });
    if (!(options.json && options.watch)) io.out.write(options.json ? json(ended) : `${raceSummary(ended)}\n`);
    return executionExit(ended);
  }
  let view: ExecutionView | null = null;
  if (options.watch) {
    const started = Date.now();
    const live = liveOutput(io.err);
    let point: Live | undefined;
    let state = "queued";
    /** Redraws the line; `force` draws it even when the terminal would not need it yet. */
    const draw = ({ force = false } = {}) => live.update(progressLine({ solver, state, live: point, elapsedMs: Date.now() - started }), { force });
    // The elapsed time moves between events too (a terminal redraws it; a log gets a line a second).
    const ticker = setInterval(() => draw(), 250);
    try {
      draw({ force: true });
      for await (const e of client.executionEvents(queued.execution_id)) {
        if (options.json) io.out.write(json(e));
        if (e.event === "final") {
          view = e.data;
          break;
        }
        state = "running";
        if (e.event === "progress") point = e.data;
        draw();
      }
    } catch (error) {
      // A stream a proxy keeps cutting (API Gateway buffers and times out SSE) is no verdict: poll instead.
      if (!isStreamDrop(error)) throw error;
      io.err.write(`incumbent: ${error.message}; waiting for the result instead\n`);
    } finally {
      clearInterval(ticker);
      draw({ force: true });
      live.done();
    }
  }
  view ??= await client.waitForExecution(queued.execution_id, { intervalMs: 500 });
  if (!(options.json && options.watch)) io.out.write(options.json ? json(view) : `${executionSummary(view)}${autoReason(view)}\n`);
  return executionExit(view);
}

/** After an auto solve, the line saying why it chose the solver it ran. */
const autoReason = (view: ExecutionView): string => (view.auto_choice ? `\nauto chose ${view.auto_choice.solver}: ${view.auto_choice.reason}` : "");

/** `incumbent compare FILE --solvers a,b`: the comparison, a live table with --watch, the verdict they share. */
export async function compareCommand(
  client: IncumbentClient,
  { file, solvers, ...options }: RunOptions & { file: string; solvers: string[] },
  io: Io,
): Promise<number> {
  const { problem, filename } = await problemOf(client, file);
  const settings = settingsOf(options);
  let detail: ComparisonDetail = await client.compare({ problem, solver_names: solvers, uploaded_filename: filename, ...(settings ? { settings } : {}) });
  if (options.watch) detail = await watchComparison(client, { launched: detail, json: options.json }, io);
  else detail = await client.waitForComparison(detail.id, { intervalMs: 500 });
  if (!(options.json && options.watch)) io.out.write(options.json ? json(detail) : `${comparisonTable(detail)}\n`);
  return comparisonExit(detail);
}

/**
 * The table, redrawn as rows run and finish: each row's incumbent and bound from the comparison's
 * event stream while it runs, its status and verdict from the comparison read once a second (the
 * stream carries points and lines, not row states), until the stream's final comparison.
 */
async function watchComparison(
  client: IncumbentClient,
  { launched, ...options }: { launched: ComparisonDetail; json: boolean },
  io: Io,
): Promise<ComparisonDetail> {
  const live = liveOutput(io.err);
  const points = new Map<string, Live>();
  let detail = launched;
  const finished = () => detail.results.filter((r) => r.solver_status !== null).length;
  const draw = ({ force = false } = {}) => live.update(comparisonTable(detail, points), { force });
  const stop = new AbortController();
  const poller = (async () => {
    while (!stop.signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      if (stop.signal.aborted) return;
      const before = finished();
      const read = await client.comparison(detail.id, stop.signal).catch(() => null);
      if (read && !stop.signal.aborted) {
        detail = read;
        draw({ force: finished() > before });
      }
    }
  })();
  try {
    draw({ force: true });
    for await (const e of client.comparisonEvents(detail.id)) {
      if (options.json) io.out.write(json(e));
      if (e.event === "final") {
        detail = e.data;
        break;
      }
      if (e.event === "progress") points.set(e.data.execution_id, e.data);
      draw();
    }
  } catch (error) {
    if (!isStreamDrop(error)) throw error;
    io.err.write(`incumbent: ${error.message}; waiting for the result instead\n`);
    detail = await client.waitForComparison(detail.id, { intervalMs: 1000 });
  } finally {
    stop.abort();
    await poller;
    draw({ force: true });
    live.done({ clear: true });
  }
  return detail;
}
