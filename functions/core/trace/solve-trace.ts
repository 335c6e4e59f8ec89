import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Timestamps of one plain solve on its way through the service, for the overhead benchmark: the API
 * process marks the request's steps, the worker process marks the job's, each on the machine's clock
 * (epoch ms with fractions), and the benchmark lays them side by side per execution.
 *
 * Off unless SOLVE_TRACE=1 in the process's environment (read at each mark, so a benchmark may switch
 * it on after importing): then a mark costs a clock read and a map write, and nothing else runs.
 * Marks taken before the execution has an id (request in, admission) belong to the request's async
 * context until `attach` names the execution.
 */
export const TRACE_POINTS = [
  "request_in",
  "admitted",
  "recorded",
  "enqueued",
  "received",
  "job_start",
  "acquired",
  "solve_start",
  "solve_end",
  "result_written",
  "message_deleted",
  "api_seen",
  "response_out",
] as const;
export type TracePoint = (typeof TRACE_POINTS)[number];
export type TraceMarks = Partial<Record<TracePoint, number>>;

const byExecution = new Map<string, TraceMarks>();
const requestScope = new AsyncLocalStorage<TraceMarks>();

export const tracing = (): boolean => process.env.SOLVE_TRACE === "1";
const clock = (): number => performance.timeOrigin + performance.now();

/** Runs `fn` as one traced request (its marks are kept until an execution id is attached). */
export function traceRequest<T>(fn: () => T): T {
  if (!tracing()) return fn();
  return requestScope.run({ request_in: clock() }, fn);
}

/** Marks `point` now, for execution `id`, or for the current request when no id is known yet. */
export function traceMark(point: TracePoint, id?: string): void {
  if (!tracing()) return;
  const marks = id ? byExecution.get(id) : requestScope.getStore();
  if (marks) marks[point] ??= clock();
  else if (id) keep(id, { [point]: clock() });
}

/** The current request's marks are execution `id`'s from now on. */
export function traceAttach(id: string): void {
  if (!tracing()) return;
  const marks = requestScope.getStore();
  if (marks) keep(id, Object.assign(marks, byExecution.get(id)));
}

/** Marks nobody takes (a traced `npm start`) are dropped oldest first past this many executions. */
const KEPT_MAX = 1000;

function keep(id: string, marks: TraceMarks): void {
  byExecution.set(id, marks);
  if (byExecution.size > KEPT_MAX) byExecution.delete(byExecution.keys().next().value!);
}

/** Adds marks taken elsewhere (the worker's, read from its output) to execution `id`'s. */
export function traceMerge(id: string, marks: TraceMarks): void {
  const kept = byExecution.get(id);
  if (kept) Object.assign(kept, marks);
  else keep(id, { ...marks });
}

/** Execution `id`'s marks, forgotten here. */
export function traceTake(id: string): TraceMarks | undefined {
  const marks = byExecution.get(id);
  byExecution.delete(id);
  return marks;
}
