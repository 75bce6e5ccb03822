import type { IncomingMessage, ServerResponse } from "node:http";
import { McpServer, type RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { HttpFixture } from "@switchboard/core/testing/http-fixture";
import { mcpSessions } from "@switchboard/core/testing/streamable-http-server";
import { z } from "zod";

/** What the upstream saw of one HTTP request (for servers that echo it back). */
export interface SeenRequest {
  url: string | undefined;
  headers: Record<string, string | string[] | undefined>;
}

export interface TestUpstreamOptions {
  /** Tool names served by the default server (each echoes `name:text`); `["echo", "add"]` by default. */
  tools?: string[];
  /** Builds the MCP server instead of the default one; gets the request that opened the session. */
  server?: (request: SeenRequest) => McpServer;
  /** Stateless Streamable HTTP with JSON responses (a fresh server per request) instead of sessions. */
  stateless?: boolean;
  /** The body of the 503 answered while `failing` (empty by default). */
  failureBody?: (request: SeenRequest) => string;
}

/**
 * The upstream MCP test server: a real MCP server (SDK McpServer) over Streamable HTTP on node:http, which a test
 * can stop and start again on the same port (an upstream being restarted), make fail (503), hold mid-request,
 * or configure (tools, its own server, stateless, what a failure says).
 */
export class TestUpstream {
  /** The HTTP side, core's restartable fixture: same port after a restart, sockets cut on stop. */
  private readonly http = new HttpFixture(() => ({
    handle: (req, res) => this.handle(req, res),
    close: async () => {},
  }));
  /** Stateful Streamable HTTP sessions, kept as core's fixtures keep them (404 "Session not found" for a stale id). */
  private readonly mcp = mcpSessions((req: IncomingMessage) => this.createMcp({ url: req.url, headers: req.headers }));
  private readonly sessions = this.mcp.sessions;
  /** Tool names served; change it to simulate a new server version. */
  tools: string[];
  /** Tools of `tools` listed only to clients that declared sampling (as some servers do). */
  samplingOnly: string[] = [];
  /** When true, every request answers 503 without closing the port (a server that is up but sick). */
  failing = false;
  /** Headers of the latest request, to check what the worker launched with. */
  lastHeaders: Record<string, string | string[] | undefined> = {};
  /**
   * Values of each header name over every request so far (lowercase names): whether some connection sent a value,
   * when other clients of this server may have sent a request since.
   */
  readonly headerValues = new Map<string, Set<string>>();
  /** While set, JSON-RPC requests for this method wait for `release()` before they are answered. */
  private held: { method: string; gate: Promise<void>; open: () => void } | undefined;
  /** Requests that arrived for the held method (answered or still waiting). */
  heldRequests = 0;
  /** Sessions whose client opened its stream for the server's own messages (where list_changed goes). */
  private readonly listening = new Set<string>();
  /** The default servers made so far with their registered tools, for `setTools` to change in place. */
  private readonly servers: Array<{ mcp: McpServer; tools: Map<string, RegisteredTool> }> = [];

  private constructor(private readonly options: TestUpstreamOptions) {
    this.tools = options.tools ?? ["echo", "add"];
  }

  static async start(options: string[] | TestUpstreamOptions = {}): Promise<TestUpstream> {
    const upstream = new TestUpstream(Array.isArray(options) ? { tools: options } : options);
    await upstream.http.start();
    return upstream;
  }

  get port(): number {
    return this.http.port;
  }

  get url(): string {
    return this.http.url("/mcp");
  }

  get running(): boolean {
    return this.http.running;
  }

  private createMcp(request: SeenRequest): McpServer {
    if (this.options.server) return this.options.server(request);
    const mcp = new McpServer({ name: "test-upstream", version: "1.0.0" });
    const samplingOnly: Array<{ disable(): void }> | undefined = this.samplingOnly.length > 0 ? [] : undefined;
    const tools = new Map<string, RegisteredTool>();
    for (const name of this.tools) {
      const tool = registerEcho(mcp, name);
      tools.set(name, tool);
      if (this.samplingOnly.includes(name)) samplingOnly?.push(tool);
    }
    this.servers.push({ mcp, tools });
    if (samplingOnly) {
      mcp.server.oninitialized = () => {
        if (!mcp.server.getClientCapabilities()?.sampling) for (const tool of samplingOnly) tool.disable();
      };
    }
    mcp.registerResource("readme", "test://readme", { mimeType: "text/plain" }, async () => ({
      contents: [{ uri: "test://readme", text: "hello" }],
    }));
    return mcp;
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    this.lastHeaders = req.headers;
    for (const [name, value] of Object.entries(req.headers)) {
      let values = this.headerValues.get(name);
      if (!values) this.headerValues.set(name, (values = new Set()));
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) values.add(v);
    }
    const seen: SeenRequest = { url: req.url, headers: req.headers };
    if (this.failing) {
      const body = this.options.failureBody?.(seen);
      if (body === undefined) res.writeHead(503).end();
      else res.writeHead(503, { "content-type": "text/plain" }).end(body);
      return;
    }
    if (this.options.stateless) {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on("close", () => void transport.close());
      await this.createMcp(seen).connect(transport);
      return transport.handleRequest(req, res);
    }
    // With a hold in place the body is read (and consumed) here, then handed to the transport parsed.
    const parsedBody = await this.waitIfHeld(req);
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string" && this.sessions.has(sessionId) && req.method === "GET") {
      this.listening.add(sessionId);
    }
    return this.mcp.handle(req, res, parsedBody);
  }

  /**
   * A new server version without a restart: every open session's server adds and removes tools to match, and
   * the SDK sends `notifications/tools/list_changed` on each session for each change (new sessions list `names`).
   */
  /** True when every open session has its stream for the server's messages open (notifications reach them). */
  get allListening(): boolean {
    return [...this.sessions.keys()].every((id) => this.listening.has(id));
  }

  setTools(names: string[]): void {
    this.tools = names;
    for (const { mcp, tools } of this.servers) {
      for (const [name, tool] of tools) {
        if (names.includes(name)) continue;
        tool.remove();
        tools.delete(name);
      }
      for (const name of names) if (!tools.has(name)) tools.set(name, registerEcho(mcp, name));
    }
  }

  /**
   * Makes every `method` request (e.g. "tools/list") hang until `release()`: an upstream that is slow mid-way
   * through a discovery, so a test can act while the worker's job is active.
   */
  hold(method: string): void {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    this.held = { method, gate, open };
    this.heldRequests = 0;
  }

  release(): void {
    this.held?.open();
    this.held = undefined;
  }

  /** With a hold in place, reads a POST body, waits at the gate when it asks for the held method, and returns it. */
  private async waitIfHeld(req: IncomingMessage): Promise<unknown> {
    const held = this.held;
    if (!held || req.method !== "POST") return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const messages = Array.isArray(body) ? body : [body];
    if (messages.some((m) => (m as { method?: unknown })?.method === held.method)) {
      this.heldRequests++;
      await held.gate;
    }
    return body;
  }

  /** Kills the server: sessions forgotten, sockets cut, port closed. */
  async stop(): Promise<void> {
    this.release();
    const all = [...this.sessions.values()];
    this.sessions.clear();
    this.listening.clear();
    this.servers.length = 0;
    await Promise.all(all.map((t) => t.close().catch(() => {})));
    await this.http.stop();
  }

  /** Starts again on the same port (fresh sessions: clients must re-initialize). */
  async restart(): Promise<void> {
    if (this.http.running) return;
    await this.http.start();
  }
}

/** A tool that echoes `name:text`. */
function registerEcho(mcp: McpServer, name: string): RegisteredTool {
  return mcp.registerTool(
    name,
    { description: `The ${name} tool`, inputSchema: { text: z.string().optional() } },
    async ({ text }) => ({ content: [{ type: "text", text: `${name}:${text ?? ""}` }] }),
  );
}
