import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

/**
 * A small document server over stateless Streamable HTTP whose tool descriptions the journey can change, as a
 * server that rewrites its tools after they were approved would (each request builds the server afresh, so the
 * next discovery sees the change).
 */
export class DocsUpstream {
  readonly descriptions: Record<string, string> = {
    search: "Search the documents",
    read: "Read a document",
    delete: "Delete a document",
    export: "Export every document",
  };
  private constructor(private readonly server: Server) {}

  static async start(): Promise<DocsUpstream> {
    let self: DocsUpstream | undefined;
    const server = createServer((req, res) => {
      const mcp = new McpServer({ name: "docs", version: "1.0.0" });
      for (const [name, description] of Object.entries(self!.descriptions)) {
        mcp.registerTool(name, { description, inputSchema: { text: z.string().optional() } }, async ({ text }) => ({
          content: [{ type: "text", text: `${name}: ${text ?? ""}` }],
        }));
      }
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on("close", () => void transport.close().catch(() => {}));
      void mcp.connect(transport).then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    self = new DocsUpstream(server);
    return self;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/mcp`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
