import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

/**
 * A documents upstream with three tools, `search`, `read` and a destructive `delete`, each answering with what it
 * was given; `extend` adds more to the same server (a test's extra tools and prompts).
 */
export function docsServer(
  options: { searchDescription?: () => string; extend?: (server: McpServer) => void } = {},
): () => McpServer {
  return () => {
    const server = new McpServer({ name: "docs", version: "1.0.0" });
    server.registerTool(
      "search",
      { description: options.searchDescription?.() ?? "Search the documents", inputSchema: { q: z.string() } },
      async ({ q }) => ({ content: [{ type: "text", text: `found ${q}` }] }),
    );
    server.registerTool(
      "read",
      { description: "Read a document", inputSchema: { id: z.string() } },
      async ({ id }) => ({ content: [{ type: "text", text: `doc ${id}` }] }),
    );
    server.registerTool(
      "delete",
      { description: "Delete a document", inputSchema: { id: z.string() }, annotations: { destructiveHint: true } },
      async ({ id }) => ({ content: [{ type: "text", text: `deleted ${id}` }] }),
    );
    options.extend?.(server);
    return server;
  };
}
