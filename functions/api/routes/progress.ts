import type { Context, Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import { ComparisonDetailSchema } from "../../core/comparisons/schemas.js";
import { AppError } from "../../core/errors.js";
import { ExecutionViewSchema } from "../../core/executions/schemas.js";
import { ExecutionLogSchema, LogEventSchema, LogQuerySchema, ProgressEventSchema, type ProgressStreamEvent } from "../../core/progress/schemas.js";
import { bearer } from "../http/admission.js";
import type { ApiDeps, ApiEnv } from "../http/context.js";
import { route } from "../http/route.js";
import { ComparisonIdParams, ExecutionIdParams } from "../http/route-parts.js";

const STREAM_DESCRIPTION =
  "A Server-Sent Events stream (text/event-stream): each message has `event:` progress, log or final and `data:` the JSON of the matching `data` below; the stream ends after `final`. Locally it streams as the solver runs; in AWS behind API Gateway's HTTP API a response is buffered whole, so poll the log route there (docs/decisions.md).";

/**
 * A stream's events as its document declares them: the same progress and log events on both streams,
 * and a `final` whose data is the stream's own resource, so a generated client reads it typed.
 */
const streamOf = (final: z.ZodType, what: string) =>
  z.discriminatedUnion("event", [ProgressEventSchema, LogEventSchema, z.object({ event: z.literal("final"), data: final.describe(what) })]);
const ExecutionStreamEventSchema = streamOf(ExecutionViewSchema, "the execution view, as GET /api/v2/models/executions/{execution_id} answers it");
const ComparisonStreamEventSchema = streamOf(ComparisonDetailSchema, "the comparison, as GET /api/v2/solvers/compare/{comparison_id} answers it");

/**
 * How often an open stream checks that its credential still stands, with a read that no cache answers:
 * a key revoked, a user removed, a password reset or a role changed ends the stream within this, in
 * every process (the key cache would otherwise keep a revoked key's stream going for its whole life).
 */
export const STREAM_REVALIDATE_MS = 1000;

/**
 * Writes the events of a stream as SSE messages until they end, the client goes away, or the
 * credential that opened it stops authenticating (then the stream just ends; a client that reconnects
 * gets the 401).
 */
function sse(
  c: Parameters<typeof streamSSE>[0],
  stillAuthorized: () => Promise<boolean>,
  open: (signal: AbortSignal) => Promise<AsyncGenerator<ProgressStreamEvent>>,
): Promise<Response> {
  const abort = new AbortController();
  // Opened before the stream starts, so not_found answers as JSON with its status.
  return open(abort.signal).then((events) =>
    streamSSE(c, async (stream) => {
      stream.onAbort(() => abort.abort());
      const watch = setInterval(() => {
        void stillAuthorized().then(
          (ok) => ok || abort.abort(),
          () => undefined,
        );
      }, STREAM_REVALIDATE_MS);
      try {
        for await (const e of events) {
          if (abort.signal.aborted) break;
          await stream.writeSSE({ event: e.event, data: JSON.stringify(e.data) });
        }
      } finally {
        clearInterval(watch);
      }
    }),
  );
}

/** Whether the request's credential still authenticates, read afresh (no key cache). */
const credentialStands = (c: Context<ApiEnv>, auth: ApiDeps["auth"]) => {
  const credential = bearer(c);
  return () =>
    auth.authenticate(credential, { fresh: true }).then(
      () => true,
      (error: unknown) => (error instanceof AppError && error.code === "unauthorized" ? false : Promise.reject(error)),
    );
};

export function registerProgressRoutes(app: Hono<ApiEnv>, deps: Pick<ApiDeps, "progress" | "auth">): void {
  route(
    app,
    {
      method: "get",
      path: "/api/v2/models/executions/:execution_id/log",
      operationId: "getExecutionLog",
      summary: "A solve's log lines from an offset, and its progress points, while it runs and after",
      description:
        "The offset counts lines, as NEOS's does: ask again with next_offset. Lines past the log's bound are summarised (one summary line; next_offset skips them). `done` is true once the execution has ended and every line was read.",
      tag: "Solve",
      access: "user",
      role: "viewer",
      rateClass: "models_read",
      errors: ["not_found"],
      params: ExecutionIdParams,
      query: LogQuerySchema,
      responses: { 200: { description: "A page of the log.", schema: ExecutionLogSchema } },
    },
    async (c, { principal, params, query }) =>
      c.json(await deps.progress.log(principal, { executionId: params.execution_id, offset: query.offset, pointOffset: query.progress_offset })),
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/models/executions/:execution_id/events",
      operationId: "streamExecutionEvents",
      summary: "A solve's progress, log lines and final result as Server-Sent Events",
      description: STREAM_DESCRIPTION,
      tag: "Solve",
      access: "user",
      role: "viewer",
      rateClass: "models_read",
      errors: ["not_found"],
      params: ExecutionIdParams,
      responses: { 200: { description: "The event stream.", contentType: "text/event-stream", schema: ExecutionStreamEventSchema } },
    },
    (c, { principal, params }) => sse(c, credentialStands(c, deps.auth), (signal) => deps.progress.executionEvents(principal, params.execution_id, signal)),
  );

  route(
    app,
    {
      method: "get",
      path: "/api/v2/solvers/compare/:comparison_id/events",
      operationId: "streamComparisonEvents",
      summary: "Every row's progress and log lines, each named by its solver, as Server-Sent Events",
      description: STREAM_DESCRIPTION,
      tag: "Solver comparison",
      access: "user",
      role: "viewer",
      rateClass: "organization",
      errors: ["not_found"],
      params: ComparisonIdParams,
      responses: { 200: { description: "The event stream.", contentType: "text/event-stream", schema: ComparisonStreamEventSchema } },
    },
    (c, { principal, params }) => sse(c, credentialStands(c, deps.auth), (signal) => deps.progress.comparisonEvents(principal, params.comparison_id, signal)),
  );
}
