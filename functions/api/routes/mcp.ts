import type { McpServer } from "./mcp-sdk.mjs";
import type { Hono } from "hono";
import { z } from "zod";
import type { Principal } from "../../core/auth/service.js";
import { CompareRequestSchema, MatrixRequestSchema } from "../../core/comparisons/schemas.js";
import { isAppError } from "../../core/errors.js";
import { assertRole, observeWindow } from "../http/admission.js";
import type { ApiDeps, ApiEnv } from "../http/context.js";
import { defineRoute, parseJsonBody, type RouteSpec, route } from "../http/route.js";
import { compareSolversOnDatasetsRoute, compareSolversRoute, getSolverComparisonMatrixRoute, getSolverComparisonRoute } from "./compare.js";

/**
 * The tool-calling interface: four comparison tools over the Model Context Protocol (Streamable HTTP,
 * stateless: a server per request, so it runs on Lambda as it runs locally). Each tool is its REST
 * twin: the same input schema and the same policy — the twin's role is checked before the tool runs,
 * and the request was counted against the twin's rate class by this route's own admission.
 */
type ToolResult = { content: { type: "text"; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

/** What the MCP transport answers a message it cannot take (not JSON-RPC, or an Accept without JSON and SSE). */
const JsonRpcErrorSchema = z.object({
  jsonrpc: z.literal("2.0"),
  error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
  id: z.union([z.string(), z.number(), z.null()]),
});

export const mcpRoute = defineRoute({
  method: "post",
  path: "/api/v2/mcp",
  operationId: "mcp",
  summary: "Model Context Protocol endpoint (Streamable HTTP, stateless)",
  description:
    "Tools: compare_solvers, get_solver_comparison, compare_solvers_on_datasets, get_solver_comparison_matrix. Authenticate as for the REST API; each tool needs the role its REST twin needs (a refusal is a tool error carrying the REST error body). Each tools/call counts as one request against the rate limits, also inside a JSON-RPC batch: a batch the window cannot take whole is 429, none of it run.",
  tag: "Tool calling",
  access: "user",
  role: "viewer",
  rateClass: "organization",
  errors: [],
  rawBody: { contentTypes: ["application/json"], description: "a JSON-RPC message of the MCP protocol" },
  responses: {
    200: { description: "JSON-RPC response (JSON or an SSE stream).", contentType: "application/json" },
    202: { description: "A JSON-RPC notification or response (no id): accepted, no body." },
    400: { description: "The body is not a JSON-RPC message (JSON-RPC error -32700 or -32600).", schema: JsonRpcErrorSchema },
    406: { description: "Accept does not name both application/json and text/event-stream, as Streamable HTTP requires.", schema: JsonRpcErrorSchema },
  },
});

interface Tool<I extends z.ZodType> {
  name: string;
  title: string;
  description: string;
  twin: Pick<RouteSpec, "role" | "rateClass" | "operationId">;
  input: I;
  run: (principal: Principal, input: z.output<I>) => Promise<unknown>;
}

const tool = <I extends z.ZodType>(t: Tool<I>): Tool<I> => t;

function tools(deps: Pick<ApiDeps, "comparisons" | "matrices">) {
  const { comparisons, matrices } = deps;
  return [
    tool({
      name: "compare_solvers",
      title: "Compare solvers on one problem",
      description:
        "Queue one problem (inline, or a model project by id) against 1–8 solvers run one after another with identical settings. Returns the comparison table; poll get_solver_comparison until status leaves pending/running.",
      twin: compareSolversRoute,
      input: CompareRequestSchema,
      run: (principal, input) => comparisons.launch(principal, input),
    }),
    tool({
      name: "get_solver_comparison",
      title: "Read a comparison",
      description: "The comparison table with rows filled in as solvers finish, and the agreement block once two solvers ended optimal or feasible.",
      twin: getSolverComparisonRoute,
      input: getSolverComparisonRoute.params!,
      run: (principal, input) => comparisons.get(principal, input.comparison_id),
    }),
    tool({
      name: "compare_solvers_on_datasets",
      title: "Compare solvers on a grid of datasets",
      description:
        "Queue a matrix: a JModel project compiled against 1–12 datasets, each row compared across 1–8 solvers. Quota cost = datasets × solvers that can run. Poll get_solver_comparison_matrix.",
      twin: compareSolversOnDatasetsRoute,
      input: MatrixRequestSchema,
      run: (principal, input) => matrices.launch(principal, input),
    }),
    tool({
      name: "get_solver_comparison_matrix",
      title: "Read a matrix",
      description: "The matrix in whatever state; its status is derived from its rows.",
      twin: getSolverComparisonMatrixRoute,
      input: getSolverComparisonMatrixRoute.params!,
      run: (principal, input) => matrices.get(principal, input.batch_id),
    }),
  ];
}

/** The twins' requests are counted as this route's are; a twin with another class would need its own count here. */
for (const spec of [compareSolversRoute, getSolverComparisonRoute, compareSolversOnDatasetsRoute, getSolverComparisonMatrixRoute]) {
  if (spec.rateClass !== mcpRoute.rateClass) throw new Error(`MCP twin ${spec.operationId} has rate class ${spec.rateClass}; count it in the tool call`);
}

/** The SDK, on the first MCP request (see mcp-sdk.mts). */
const loadSdk = () => import("./mcp-sdk.mjs");

export async function buildMcpServer(deps: Pick<ApiDeps, "comparisons" | "matrices" | "config">, principal: Principal): Promise<McpServer> {
  const { McpServer } = await loadSdk();
  const server = new McpServer({ name: "incumbent", version: deps.config.apiVersion });
  for (const t of tools(deps)) {
    server.registerTool(
      t.name,
      { title: t.title, description: t.description, inputSchema: t.input as z.ZodObject },
      async (input: unknown): Promise<ToolResult> => {
        try {
          assertRole(principal, t.twin);
          const value = (await t.run(principal, t.input.parse(input) as never)) as Record<string, unknown>;
          return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
        } catch (error) {
          if (isAppError(error)) return { content: [{ type: "text", text: JSON.stringify(error.body()) }], isError: true };
          throw error;
        }
      },
    );
  }
  return server;
}

/** The most messages the MCP transport takes in one batch (the SDK's MAX_BATCH_SIZE); past it, 400. */
const MAX_MCP_BATCH = 100;

/** How many `tools/call` requests a JSON-RPC message or batch holds. */
export function toolCallCount(message: unknown): number {
  const messages = Array.isArray(message) ? message : [message];
  return messages.filter((m) => typeof m === "object" && m !== null && (m as { method?: unknown }).method === "tools/call").length;
}

export function registerMcpRoutes(app: Hono<ApiEnv>, deps: Pick<ApiDeps, "comparisons" | "matrices" | "config" | "limiter" | "clock">): void {
  route(app, mcpRoute, async (c, { principal }) => {
    // The body is read here, within the ceiling, and measured before it is parsed (http/route.ts).
    const text = await c.req.text();
    let parsed: unknown;
    try {
      parsed = parseJsonBody(text);
    } catch (error) {
      // Malformed JSON is the transport's to answer, as a JSON-RPC parse error; past the limits is ours.
      if (!(isAppError(error) && error.code === "malformed_json")) throw error;
    }
    // Each tool call is a request: admission counted one; a batch's others are counted now, all or
    // none, before any of them runs (10 compare_solvers in one batch counted once).
    const calls = toolCallCount(parsed);
    // A batch past the transport's own bound is refused by it (400) with nothing run: nothing to count.
    if (calls > 1 && !(Array.isArray(parsed) && parsed.length > MAX_MCP_BATCH)) {
      const now = deps.clock.now();
      const result = await deps.limiter.consume(mcpRoute.rateClass, { subject: principal.orgId, nowMs: now, amount: calls - 1 });
      if (result) observeWindow(c, { result, nowMs: now, what: "requests (each tool call of a batch counts)", amount: calls - 1 });
    }
    const { WebStandardStreamableHTTPServerTransport } = await loadSdk();
    const server = await buildMcpServer(deps, principal);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const request = new Request(c.req.raw.url, { method: "POST", headers: c.req.raw.headers, body: text });
      return await transport.handleRequest(request, parsed === undefined ? undefined : { parsedBody: parsed });
    } finally {
      void server.close();
    }
  });
}
