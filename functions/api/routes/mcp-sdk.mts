/**
 * The parts of the MCP SDK the MCP route uses, as a module of their own. The API's Lambda asset ships
 * it as a separate file beside index.mjs (lib/api.ts), imported on the first MCP request, so the SDK
 * (with ajv and zod v3) is neither parsed nor evaluated on the cold starts of every other route.
 */
export { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
export { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
