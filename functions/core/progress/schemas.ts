import { z } from "zod";
import { SCHEMA_NAMES } from "../schema-names.js";

/** One moment of a running search, in the problem's own objective sense. */
export const ProgressPointSchema = z.object({
  time_seconds: z.number().describe("seconds since the solver started"),
  primal: z.number().nullable().describe("best objective found so far (the incumbent)"),
  dual: z.number().nullable().describe("best objective proved possible so far"),
  gap: z.number().nullable().describe("|primal − dual| / max(|primal|, 1e-10); null without both"),
  nodes: z.number().nullable().describe("branch-and-bound nodes so far, as the solver counts them"),
});
export type ProgressPoint = z.infer<typeof ProgressPointSchema>;

export const IncumbentSchema = z.object({
  time_seconds: z.number().describe("seconds since the solver started"),
  objective_value: z.number(),
});
export type IncumbentEntry = z.infer<typeof IncumbentSchema>;

export const LogQuerySchema = z.object({
  offset: z.coerce.number().int().min(0).default(0).describe("the first line to answer, counted from 0 over the whole log"),
  progress_offset: z.coerce.number().int().min(0).default(0).describe("the first progress point to answer"),
});

export const ExecutionLogSchema = z.object({
  offset: z.number().int(),
  next_offset: z.number().int().describe("ask for this offset next; lines summarised away are skipped"),
  lines: z.array(z.string()).describe("the solver's log lines from offset on (at most LOG_PAGE_LINES); a summary line stands for lines past the bound"),
  progress: z.array(ProgressPointSchema).describe("the progress points from progress_offset on"),
  next_progress_offset: z.number().int(),
  done: z.boolean().describe("the execution has ended: nothing more will be added"),
});
export type ExecutionLog = z.infer<typeof ExecutionLogSchema>;

/** Which execution (and, in a comparison's stream, which row's solver) an event belongs to. */
const EventSourceSchema = z.object({
  execution_id: z.string(),
  solver_name: z.string(),
});

/** A `progress` event: one new point of a running solve, named by its execution and solver. */
export const ProgressEventSchema = z.object({
  event: z.literal("progress"),
  data: ProgressPointSchema.extend(EventSourceSchema.shape).extend({ index: z.number().int().describe("the point's place in its execution's progress") }),
});
SCHEMA_NAMES.add(ProgressEventSchema, { id: "ProgressEvent" });
/** A `log` event: one new line of a solver's log. */
export const LogEventSchema = z.object({ event: z.literal("log"), data: EventSourceSchema.extend({ offset: z.number().int(), line: z.string() }) });
SCHEMA_NAMES.add(LogEventSchema, { id: "LogEvent" });

/**
 * The events of a Server-Sent Events stream, each sent as `event: <event>` with `data:` the JSON of
 * `data`: `progress` for each new point, `log` for each new line, and one `final` (the execution view,
 * or the comparison) before the stream ends. Each route documents its own `final` (routes/progress.ts).
 */
export const ProgressStreamEventSchema = z.discriminatedUnion("event", [
  ProgressEventSchema,
  LogEventSchema,
  z.object({ event: z.literal("final"), data: z.record(z.string(), z.unknown()).describe("the execution view, or the comparison detail") }),
]);
export type ProgressStreamEvent = z.infer<typeof ProgressStreamEventSchema>;
