import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Hono } from "hono";
import { z } from "zod";
import type { Principal } from "../../core/auth/service.js";
import { CompareRequestSchema, MatrixRequestSchema } from "../../core/comparisons/schemas.js";
import { isAppError } from "../../core/errors.js";
import type { ApiDeps, ApiEnv } from "../http/context.js";
import { requirePrincipal, route } from "../http/route.js";

/**
 * The tool-calling interface: four comparison tools over the Model Context Protocol (Streamable HTTP,
 * stateless: a server per request, so it runs on Lambda as it runs locally). Same authentication and
 * rate limits as the REST routes; the tools' input schemas are the REST routes' zod schemas.
 */
type ToolResult = { content: { type: "text"; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

async function asTool(run: () => Promise<unknown>): Promise<ToolResult> {
  try {
    const value = (await run()) as Record<string, unknown>;
    return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
  } catch (error) {
    if (isAppError(error)) return { content: [{ type: "text", text: JSON.stringify(error.body()) }], isError: true };
    throw error;
  }
}

export function buildMcpServer(deps: ApiDeps, principal: Principal): McpServer {
  const server = new McpServer({ name: "incumbent", version: deps.config.apiVersion });
  server.registerTool(
    "compare_solvers",
    {
      title: "Compare solvers on one problem",
      description:
        "Queue one problem (inline, or a model project by id) against 1–8 solvers run one after another with identical settings. Returns the comparison table; poll get_solver_comparison until status leaves pending/running.",
      inputSchema: CompareRequestSchema,
    },
    (input) => asTool(() => deps.comparisons.launch(principal, CompareRequestSchema.parse(input))),
  );
  server.registerTool(
    "get_solver_comparison",
    {
      title: "Read a comparison",
      description: "The comparison table with rows filled in as solvers finish, and the agreement block once two solvers ended optimal or feasible.",
      inputSchema: z.object({ comparison_id: z.string().min(1) }),
    },
    ({ comparison_id }) => asTool(() => deps.comparisons.get(principal, comparison_id)),
  );
  server.registerTool(
    "compare_solvers_on_datasets",
    {
      title: "Compare solvers on a grid of datasets",
      description:
        "Queue a matrix: a JModel project compiled against 1–12 datasets, each row compared across 1–8 solvers. Quota cost = datasets × solvers that can run. Poll get_solver_comparison_matrix.",
      inputSchema: MatrixRequestSchema,
    },
    (input) => asTool(() => deps.comparisons.launchMatrix(principal, MatrixRequestSchema.parse(input))),
  );
  server.registerTool(
    "get_solver_comparison_matrix",
    {
      title: "Read a matrix",
      description: "The matrix in whatever state; its status is derived from its rows.",
      inputSchema: z.object({ batch_id: z.string().min(1) }),
    },
    ({ batch_id }) => asTool(() => deps.comparisons.getMatrix(principal, batch_id)),
  );
  return server;
}

export function registerMcpRoutes(app: Hono<ApiEnv>): void {
  route(
    app,
    {
      method: "post",
      path: "/api/v2/mcp",
      operationId: "mcp",
      summary: "Model Context Protocol endpoint (Streamable HTTP, stateless)",
      description:
        "Tools: compare_solvers, get_solver_comparison, compare_solvers_on_datasets, get_solver_comparison_matrix. Authenticate as for the REST API.",
      tag: "Tool calling",
      access: "user",
      rawBody: { contentTypes: ["application/json"], description: "a JSON-RPC message of the MCP protocol" },
      responses: { 200: { description: "JSON-RPC response (JSON or an SSE stream)." } },
    },
    async (c, input) => {
      const principal = requirePrincipal(input);
      const server = buildMcpServer(c.get("deps"), principal);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        return await transport.handleRequest(c.req.raw);
      } finally {
        void server.close();
      }
    },
  );
}
