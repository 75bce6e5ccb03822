import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

/**
 * A real MCP server over Streamable HTTP (stateless) that echoes back what it was sent in every way a server
 * can: the request's headers and URL in a tool result, in a JSON-RPC error, and, once `broken`, in the body of
 * an HTTP 503 answered to every request.
 */
export class LeakyUpstream {
  broken = false;
  private constructor(private readonly server: Server) {}

  static async start(): Promise<LeakyUpstream> {
    let upstream: LeakyUpstream | undefined;
    const server = createServer((req, res) => void upstream!.handle(req, res));
    upstream = new LeakyUpstream(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return upstream;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/mcp`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const seen = JSON.stringify({ url: req.url, headers: req.headers });
    if (this.broken) {
      res.writeHead(503, { "content-type": "text/plain" }).end(`upstream refused the request ${seen}`);
      return;
    }
    const mcp = new McpServer({ name: "leaky-http", version: "1.0.0" });
    mcp.registerTool("whoami", { description: "Echoes the request", inputSchema: { note: z.string().optional() } }, async ({ note }) => ({
      content: [{ type: "text", text: `${seen} note=${note ?? ""}` }],
    }));
    mcp.registerResource("leak", new ResourceTemplate("leak://{name}", { list: undefined }), { description: "Fails with the request" }, async () => {
      throw new Error(`access denied for ${seen}`);
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  }
}
