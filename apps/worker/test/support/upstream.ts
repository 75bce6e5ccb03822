import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

/**
 * A real MCP server (SDK McpServer) over Streamable HTTP on node:http, which a test can stop and start again
 * on the same port, like an upstream being restarted.
 */
export class TestUpstream {
  private server: Server | undefined;
  private readonly sessions = new Map<string, StreamableHTTPServerTransport>();
  port = 0;
  /** Tool names served; change it to simulate a new server version. */
  tools: string[];
  /** When true, every request answers 503 without closing the port (a server that is up but sick). */
  failing = false;
  /** Headers of the latest request, to check what the worker launched with. */
  lastHeaders: Record<string, string | string[] | undefined> = {};

  private constructor(tools: string[]) {
    this.tools = tools;
  }

  static async start(tools: string[] = ["echo", "add"]): Promise<TestUpstream> {
    const upstream = new TestUpstream(tools);
    await upstream.listen(0);
    return upstream;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  get running(): boolean {
    return this.server !== undefined;
  }

  private createMcp(): McpServer {
    const mcp = new McpServer({ name: "test-upstream", version: "1.0.0" });
    for (const name of this.tools) {
      mcp.registerTool(name, { description: `The ${name} tool`, inputSchema: { text: z.string().optional() } }, async ({ text }) => ({
        content: [{ type: "text", text: `${name}:${text ?? ""}` }],
      }));
    }
    mcp.registerResource("readme", "test://readme", { mimeType: "text/plain" }, async () => ({
      contents: [{ uri: "test://readme", text: "hello" }],
    }));
    return mcp;
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    this.lastHeaders = req.headers;
    if (this.failing) {
      res.writeHead(503).end();
      return;
    }
    const sessionId = req.headers["mcp-session-id"];
    const existing = typeof sessionId === "string" ? this.sessions.get(sessionId) : undefined;
    if (existing) return existing.handleRequest(req, res);
    if (sessionId !== undefined) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void this.sessions.set(id, transport),
      onsessionclosed: (id) => void this.sessions.delete(id),
    });
    await this.createMcp().connect(transport);
    await transport.handleRequest(req, res);
  }

  private async listen(port: number) {
    const server = createServer((req, res) => {
      this.handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  /** Kills the server: sessions forgotten, sockets cut, port closed. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((t) => t.close().catch(() => {})));
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  /** Starts again on the same port (fresh sessions: clients must re-initialize). */
  async restart(): Promise<void> {
    if (this.server) return;
    await this.listen(this.port);
  }
}
