import type { paths } from "./openapi.generated.js";

export type { components, operations, paths } from "./openapi.generated.js";

/**
 * Names for the shapes people use, each read off the generated document types (never written by
 * hand), so a changed response schema changes them and every use fails to compile where it no longer
 * fits.
 */
export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";
export type ApiPath = keyof paths;

type Operation<P extends ApiPath, M extends HttpMethod> = NonNullable<paths[P][M]>;
type ResponsesOf<P extends ApiPath, M extends HttpMethod> = Operation<P, M> extends { responses: infer R } ? R : never;
type MediaOf<R, Media extends string> = R extends { content: infer C } ? (Media extends keyof C ? C[Media] : never) : never;

/** The JSON body of one response of an operation: `ResponseBody<"/api/v2/keys", "get">`. */
export type ResponseBody<P extends ApiPath, M extends HttpMethod, S extends keyof ResponsesOf<P, M> = 200 & keyof ResponsesOf<P, M>> = MediaOf<
  ResponsesOf<P, M>[S],
  "application/json"
>;

/** The JSON request body of an operation. */
export type RequestBody<P extends ApiPath, M extends HttpMethod> =
  Operation<P, M> extends { requestBody?: infer B } ? MediaOf<NonNullable<B>, "application/json"> : never;

/** The events of a Server-Sent Events route, as its document declares them. */
export type StreamEvent<P extends ApiPath> = MediaOf<ResponsesOf<P, "get">[200 & keyof ResponsesOf<P, "get">], "text/event-stream">;

// Solving
export type SolveRequest = RequestBody<"/api/v2/solve", "post">;
export type Problem = SolveRequest["problem"];
export type SolveSettings = NonNullable<SolveRequest["settings"]>;
export type SolverChoice = NonNullable<SolveRequest["solver_name"]>;
export type SolveResponse = ResponseBody<"/api/v2/solve", "post">;
export type SolverStatus = SolveResponse["status"];
export type AsyncSolveAccepted = ResponseBody<"/api/v2/solve/async", "post", 202>;
export type ExecutionView = ResponseBody<"/api/v2/models/executions/{execution_id}", "get">;
export type ExecutionStatus = ExecutionView["status"];
export type ExecutionLog = ResponseBody<"/api/v2/models/executions/{execution_id}/log", "get">;
export type ProblemPreview = ResponseBody<"/api/v2/solve/import/preview", "post">;
export type SolversAvailable = ResponseBody<"/api/v2/solvers/available", "get">;

// Races and auto (issue 29)
export type RaceView = NonNullable<ExecutionView["race"]>;
export type RaceEntrant = RaceView["entrants"][number];
export type AutoChoice = NonNullable<ExecutionView["auto_choice"]>;
export type RecommendationQuery = NonNullable<Operation<"/api/v2/solvers/recommendation", "get">["parameters"]["query"]>;
export type Recommendation = ResponseBody<"/api/v2/solvers/recommendation", "get">;

// Progress streams
export type ExecutionStreamEvent = StreamEvent<"/api/v2/models/executions/{execution_id}/events">;
export type ComparisonStreamEvent = StreamEvent<"/api/v2/solvers/compare/{comparison_id}/events">;
export type ProgressEvent = Extract<ExecutionStreamEvent, { event: "progress" }>;
export type LogEvent = Extract<ExecutionStreamEvent, { event: "log" }>;

// Comparisons and matrices
export type CompareRequest = RequestBody<"/api/v2/solvers/compare", "post">;
export type ComparisonDetail = ResponseBody<"/api/v2/solvers/compare/{comparison_id}", "get">;
export type ComparisonRow = ComparisonDetail["results"][number];
export type Agreement = NonNullable<ComparisonDetail["agreement"]>;
export type ComparisonList = ResponseBody<"/api/v2/solvers/compare", "get">;
export type MatrixDetail = ResponseBody<"/api/v2/solvers/compare/batches/{batch_id}", "get">;
export type MatrixList = ResponseBody<"/api/v2/solvers/compare/batches", "get">;

// Triggers
export type Trigger = ResponseBody<"/api/v2/triggers/{trigger_id}", "get">;
export type TriggerCreated = ResponseBody<"/api/v2/triggers", "post", 201>;
export type TriggerList = ResponseBody<"/api/v2/triggers", "get">;
export type TriggerRunPage = ResponseBody<"/api/v2/triggers/{trigger_id}/runs", "get">;
export type TriggerRun = ResponseBody<"/api/v2/triggers/{trigger_id}/runs/{run_id}", "get">;
export type FireRequest = RequestBody<"/api/v2/triggers/{trigger_id}/fire", "post">;
export type FireAccepted = ResponseBody<"/api/v2/triggers/{trigger_id}/fire", "post", 202>;

// Keys, identity, notifications
export type ApiKeyList = ResponseBody<"/api/v2/keys", "get">;
export type ApiKeyCreated = ResponseBody<"/api/v2/keys", "post", 201>;
export type Me = ResponseBody<"/api/v2/auth/me", "get">;
export type LoginResponse = ResponseBody<"/api/v2/auth/login", "post">;
export type NotificationList = ResponseBody<"/api/v2/notifications", "get">;
