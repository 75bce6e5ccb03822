import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { UpstreamConnection } from "@switchboard/core/upstream";

/**
 * An MCP server for one bridge session that forwards every request to the instance's single upstream
 * connection: many sessions (the proxy route of each member's client, other workers) share one stdio process.
 */
export function createForwardingServer(
  first: UpstreamConnection,
  connection: () => Promise<UpstreamConnection>,
): Server {
  const capabilities = first.getServerCapabilities() ?? {};
  const info = first.getServerVersion() ?? { name: "switchboard-bridge", version: "0.0.0" };
  const server = new Server(info, { capabilities, instructions: first.getInstructions() });
  server.setRequestHandler(ListToolsRequestSchema, async (req) => (await connection()).listTools(req.params));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const result = await (await connection()).callTool(req.params, { signal: extra.signal });
    return result as CallToolResult;
  });
  if (capabilities.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, async (req) => (await connection()).listResources(req.params));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async (req) => (await connection()).listResourceTemplates(req.params));
    server.setRequestHandler(ReadResourceRequestSchema, async (req, extra) => (await connection()).readResource(req.params, { signal: extra.signal }));
  }
  if (capabilities.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, async (req) => (await connection()).listPrompts(req.params));
    server.setRequestHandler(GetPromptRequestSchema, async (req, extra) => (await connection()).getPrompt(req.params, { signal: extra.signal }));
  }
  return server;
}
