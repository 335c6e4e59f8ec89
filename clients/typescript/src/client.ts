import createFetchClient, { type Client } from "openapi-fetch";
import { IncumbentError } from "./errors.js";
import { abortablePause, readEventStream, type StreamOptions } from "./events.js";
import type { paths } from "./openapi.generated.js";
import type {
  AsyncSolveAccepted,
  CompareRequest,
  ComparisonDetail,
  ComparisonStreamEvent,
  ExecutionStreamEvent,
  ExecutionView,
  FireAccepted,
  Problem,
  ProblemPreview,
  Recommendation,
  RecommendationQuery,
  SolveRequest,
  SolveResponse,
} from "./types.js";

export type IncumbentApi = Client<paths>;

export interface ClientOptions {
  /** The service's root, e.g. `http://127.0.0.1:8080` (every path starts with /api/v2). */
  baseUrl: string;
  /** An API key or a session token, or a function read on every request (a console's current sign-in). */
  credential?: string | null | (() => string | null | undefined);
  /** Another fetch (tests, proxies); default the global one. */
  fetch?: (request: Request) => Promise<Response>;
  /** Called with each 401 answered to a request that carried the current credential. */
  onUnauthorized?: (response: Response) => void;
}

/** What openapi-fetch answers: the data, or the error body, with the response. */
interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of a 2xx, or an IncumbentError carrying the status and the service's error body.
 * `await unwrap(client.api.GET("/api/v2/keys"))` is the way to call any operation typed.
 */
export async function unwrap<T>(call: Promise<FetchResult<T>> | FetchResult<T>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) {
    const url = new URL(response.url || "http://unknown/");
    throw new IncumbentError({ status: response.status, body: error ?? null, requestId: response.headers.get("x-request-id"), path: url.pathname });
  }
  return data as T;
}

export interface WaitOptions {
  signal?: AbortSignal;
  /** Between two reads; default 1000 ms. */
  intervalMs?: number;
  /** Give up (throw) after this long; default never. */
  timeoutMs?: number;
}

/** A problem file to upload: its bytes as they are on disk, gzip-compressed or not. */
export interface ProblemFile {
  content: Blob | Uint8Array | string;
  /** Its name, from which the service tells MPS from LP (`afiro.mps.gz` reads as MPS). */
  filename?: string;
  format?: "mps" | "lp" | "auto";
}

export interface FireOptions {
  /** The trigger's own secret (not an API key). */
  secret: string;
  overrideData?: Record<string, unknown>;
  /** Where the secret travels: the Authorization header (default) or the body's trigger_secret. */
  secretIn?: "header" | "body";
}

const EXECUTION_ENDED = new Set<ExecutionView["status"]>(["completed", "failed", "cancelled"]);
const COMPARISON_ENDED = new Set<ComparisonDetail["status"]>(["completed", "failed", "cancelled"]);

/**
 * The Incumbent API, typed from its OpenAPI document: `api` reaches every operation
 * (openapi-fetch), and the methods below do what raw HTTP makes hard — waiting, streaming progress,
 * uploading a file, firing a trigger.
 */
export class IncumbentClient {
  readonly api: IncumbentApi;
  readonly baseUrl: string;
  private readonly credential: () => string | null | undefined;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    const credential = options.credential;
    this.credential = typeof credential === "function" ? credential : () => credential;
    this.api = createFetchClient<paths>({ baseUrl: this.baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });
    this.api.use({
      onRequest: ({ request }) => {
        const token = this.credential();
        if (token && !request.headers.has("Authorization")) request.headers.set("Authorization", `Bearer ${token}`);
        return request;
      },
      onResponse: ({ request, response }) => {
        const token = this.credential();
        if (response.status === 401 && token && request.headers.get("Authorization") === `Bearer ${token}`) options.onUnauthorized?.(response);
        // undefined: openapi-fetch keeps the response as it is
      },
    });
  }

  /** Solve and wait for the verdict (the service waits up to SOLVE_WAIT_SECONDS; past it, 503 solver_busy). */
  solve(request: SolveRequest): Promise<SolveResponse> {
    return unwrap(this.api.POST("/api/v2/solve", { body: request }));
  }

  /** Queue a solve: 202 with the execution id. */
  submit(request: SolveRequest): Promise<AsyncSolveAccepted> {
    return unwrap(this.api.POST("/api/v2/solve/async", { body: request }));
  }

  execution(executionId: string, signal?: AbortSignal): Promise<ExecutionView> {
    return unwrap(this.api.GET("/api/v2/models/executions/{execution_id}", { params: { path: { execution_id: executionId } }, signal }));
  }

  /** Reads the execution until it has ended (completed, failed or cancelled). */
  waitForExecution(executionId: string, options: WaitOptions = {}): Promise<ExecutionView> {
    return this.poll(
      (signal) => this.execution(executionId, signal),
      (e) => EXECUTION_ENDED.has(e.status),
      options,
    );
  }

  /** An execution's progress points, log lines and final view, live, as Server-Sent Events. */
  executionEvents(executionId: string, options: StreamOptions = {}): AsyncGenerator<ExecutionStreamEvent, void, undefined> {
    return readEventStream<ExecutionStreamEvent>(
      (signal) =>
        this.openStream(
          this.api.GET("/api/v2/models/executions/{execution_id}/events", {
            params: { path: { execution_id: executionId } },
            headers: { Accept: "text/event-stream" },
            parseAs: "stream",
            signal,
          }),
        ),
      options,
    );
  }

  /** What solver_name `auto` would run for a problem of these stats: the ranking and its evidence (issue 29). */
  recommendation(query: RecommendationQuery, signal?: AbortSignal): Promise<Recommendation> {
    return unwrap(this.api.GET("/api/v2/solvers/recommendation", { params: { query }, signal }));
  }

  /** What solver_name `auto` would run for this problem itself (its coefficient ranges too): the same ranking, nothing solved or charged. */
  recommendationFor(problem: Problem, signal?: AbortSignal): Promise<Recommendation> {
    return unwrap(this.api.POST("/api/v2/solvers/recommendation", { body: { problem }, signal }));
  }

  /** Queue a comparison: 202 with the table shaped, every row pending. */
  compare(request: CompareRequest): Promise<ComparisonDetail> {
    return unwrap(this.api.POST("/api/v2/solvers/compare", { body: request }));
  }

  comparison(comparisonId: string, signal?: AbortSignal): Promise<ComparisonDetail> {
    return unwrap(this.api.GET("/api/v2/solvers/compare/{comparison_id}", { params: { path: { comparison_id: comparisonId } }, signal }));
  }

  waitForComparison(comparisonId: string, options: WaitOptions = {}): Promise<ComparisonDetail> {
    return this.poll(
      (signal) => this.comparison(comparisonId, signal),
      (c) => COMPARISON_ENDED.has(c.status),
      options,
    );
  }

  /** Every row's progress and log lines (named by solver) and the final comparison, as Server-Sent Events. */
  comparisonEvents(comparisonId: string, options: StreamOptions = {}): AsyncGenerator<ComparisonStreamEvent, void, undefined> {
    return readEventStream<ComparisonStreamEvent>(
      (signal) =>
        this.openStream(
          this.api.GET("/api/v2/solvers/compare/{comparison_id}/events", {
            params: { path: { comparison_id: comparisonId } },
            headers: { Accept: "text/event-stream" },
            parseAs: "stream",
            signal,
          }),
        ),
      options,
    );
  }

  /**
   * Parses a problem file into the canonical problem (POST /solve/import/preview, multipart). The bytes
   * go as they are: the service reads gzip itself and caps what it decompresses.
   */
  previewFile(file: ProblemFile): Promise<ProblemPreview> {
    return unwrap(
      this.api.POST("/api/v2/solve/import/preview", {
        body: fileForm(file) as never,
        bodySerializer: (body: unknown) => body as FormData,
      }),
    );
  }

  /** What solver_name `auto` would run for the problem in a file (POST /solvers/recommendation/import, multipart, as previewFile sends it). */
  recommendationForFile(file: ProblemFile, signal?: AbortSignal): Promise<Recommendation> {
    return unwrap(
      this.api.POST("/api/v2/solvers/recommendation/import", {
        body: fileForm(file) as never,
        bodySerializer: (body: unknown) => body as FormData,
        signal,
      }),
    );
  }

  /** Fires a trigger with its own secret: 202 with the run id. */
  fireTrigger(triggerId: string, options: FireOptions): Promise<FireAccepted> {
    const inBody = options.secretIn === "body";
    return unwrap(
      this.api.POST("/api/v2/triggers/{trigger_id}/fire", {
        params: { path: { trigger_id: triggerId } },
        body: { ...(options.overrideData ? { override_data: options.overrideData } : {}), ...(inBody ? { trigger_secret: options.secret } : {}) },
        // The secret, never the client's API key: a fire is the trigger's own credential.
        headers: inBody ? { Authorization: "" } : { Authorization: `Bearer ${options.secret}` },
      }),
    );
  }

  /** The stream's response once it is 2xx; otherwise the error openapi-fetch already read from its body. */
  private async openStream(call: Promise<FetchResult<ReadableStream<Uint8Array> | null>>): Promise<Response> {
    const result = await call;
    if (!result.response.ok) await unwrap(result);
    return result.response;
  }

  private async poll<T>(read: (signal?: AbortSignal) => Promise<T>, done: (value: T) => boolean, options: WaitOptions): Promise<T> {
    const deadline = options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.timeoutMs;
    for (;;) {
      const value = await read(options.signal);
      if (done(value)) return value;
      if (Date.now() >= deadline) throw new Error(`still not finished after ${options.timeoutMs} ms`);
      await abortablePause(Math.min(options.intervalMs ?? 1000, Math.max(0, deadline - Date.now())), options.signal);
    }
  }
}

/** A problem file as multipart: its bytes as they are (the service reads gzip itself), its name and format. */
function fileForm(file: ProblemFile): FormData {
  const form = new FormData();
  const blob = file.content instanceof Blob ? file.content : new Blob([file.content] as ConstructorParameters<typeof Blob>[0]);
  form.append("file", blob, file.filename ?? "problem");
  if (file.format) form.append("format", file.format);
  return form;
}

/** The recommendation's query from the stats an import preview (or a solve) reports: integer and binary columns count together. */
export function recommendationQueryOf(stats: ProblemPreview["stats"]): RecommendationQuery {
  return {
    class: stats.problem_class,
    variables: stats.variable_count,
    constraints: stats.constraint_count,
    nonzeros: stats.nonzero_count,
    integer_variables: stats.integer_count + stats.binary_count,
  };
}

export const createIncumbentClient = (options: ClientOptions): IncumbentClient => new IncumbentClient(options);
