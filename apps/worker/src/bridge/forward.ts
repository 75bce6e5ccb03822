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
import { relayedCall, relayLogging, requestOptions } from "@switchboard/core/proxy";
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
  // Progress and log messages of a request go back to the session that asked, as the hosted route does with
  // its own clients: the upstream connection asks with a progress token of its own, relayed under the caller's.
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const upstream = await connection();
    const { params, options } = relayedCall(req.params, extra);
    const result = await relayLogging(upstream, extra, () => upstream.callTool(params, options));
    return result as CallToolResult;
  });
  if (capabilities.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, async (req) => (await connection()).listResources(req.params));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async (req) => (await connection()).listResourceTemplates(req.params));
    server.setRequestHandler(ReadResourceRequestSchema, async (req, extra) => {
      const upstream = await connection();
      return relayLogging(upstream, extra, () => upstream.readResource(req.params, requestOptions(undefined, extra)));
    });
  }
  if (capabilities.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, async (req) => (await connection()).listPrompts(req.params));
    server.setRequestHandler(GetPromptRequestSchema, async (req, extra) => {
      const upstream = await connection();
      return relayLogging(upstream, extra, () => upstream.getPrompt(req.params, requestOptions(undefined, extra)));
    });
  }
  return server;
}
