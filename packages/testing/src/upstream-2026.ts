import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  acceptedContent,
  createMcpHandler,
  hostHeaderValidationResponse,
  inputRequired,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  McpServer,
  originValidationResponse,
  type McpHttpHandler,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { FixtureTasks, sleep, TASKS_EXTENSION } from "./tasks-2026";

export { TASKS_EXTENSION };

export interface Upstream2026Options {
  /** Tool names served (each echoes `name:text`); `["echo", "add"]` by default. */
  tools?: string[];
  /**
   * How 2025-era requests are served: `"reject"` (the default) makes a server that speaks 2026-07-28 only, so a
   * client that fell back to `initialize` fails loudly; `"stateless"` serves both revisions.
   */
  legacy?: "stateless" | "reject";
  /** Another server to serve instead of the echo tools (one instance per request), e.g. `conformanceServer2026`. */
  server?: () => McpServer;
  /** Refuse requests whose Host or Origin is not a loopback one (DNS rebinding protection), as the SDK advises. */
  loopbackHostsOnly?: boolean;
  /**
   * Serve the tasks extension (`io.modelcontextprotocol/tasks`): advertised in `server/discover`, and `slow`
   * answers a client that declares the extension with a task (`resultType: "task"`) that completes after
   * `seconds`, polled with `tasks/get`, cancelled with `tasks/cancel`. SDK v2 2.4.0 has no tasks support of its
   * own, so the tasks live here, in the upstream object (one server instance per request cannot keep them).
   */
  tasks?: boolean;
  /**
   * Behave as a careless or hostile server: every request is served as if its client had declared sampling,
   * elicitation and roots, whatever it declared, so `confirm` asks for an elicitation nobody offered.
   */
  ignoreClientCapabilities?: boolean;
  /**
   * Capabilities left out of the `server/discover` answer though still served, as by a server whose answer is
   * written by hand: the conformance repository's reference server serves `completion/complete` without declaring
   * `completions`.
   */
  undeclared?: string[];
}

const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

/** What the upstream saw of one HTTP request. */
export interface SeenRequest2026 {
  method: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/**
 * An upstream that speaks the 2026-07-28 revision: the official SDK v2 server (`@modelcontextprotocol/server`)
 * behind `createMcpHandler` (stateless, one server instance per request) on node:http. Besides the echo tools it
 * serves the resource `status://now` (subscribable over `subscriptions/listen`), `work`, which reports progress and logs a line, and `confirm`, which asks its client for a confirmation through a multi-round-trip `input_required` result
 * (an elicitation) and answers `confirmed:<text>` or `declined` once the retry carries the answer.
 */
export class Upstream2026 {
  private server: Server | undefined;
  private readonly handler: McpHttpHandler;
  port = 0;
  /** The echo tools served now; `setTools` changes them and tells the listening clients. */
  tools: string[];
  private readonly loopbackHostsOnly: boolean;
  private readonly ignoreClientCapabilities: boolean;
  private readonly undeclared: readonly string[];
  /** Every HTTP request that reached the server, oldest first. */
  readonly seen: SeenRequest2026[] = [];
  private readonly tasks: FixtureTasks | undefined;
  /**
   * The requests whose response is still open. Node 20's fetch `Request` follows the signal it was given only while
   * the Request object lives (undici reaches its own signal's controller through a WeakRef), and the SDK's handler
   * keeps nothing but `request.signal`: without this, a collected Request never told the server its client had
   * gone, and a listen stream stayed open on the server after its socket closed.
   */
  private readonly open = new Set<Request>();

  private constructor(options: Upstream2026Options) {
    this.tools = options.tools ?? ["echo", "add"];
    this.tasks = options.tasks ? new FixtureTasks() : undefined;
    this.loopbackHostsOnly = options.loopbackHostsOnly ?? false;
    this.ignoreClientCapabilities = options.ignoreClientCapabilities ?? false;
    this.undeclared = options.undeclared ?? [];
    this.handler = createMcpHandler(options.server ?? (() => this.createMcp()), { legacy: options.legacy ?? "reject" });
  }

  static async start(options: Upstream2026Options = {}): Promise<Upstream2026> {
    const upstream = new Upstream2026(options);
    const server = createServer((req, res) => void upstream.serve(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    upstream.server = server;
    upstream.port = (server.address() as AddressInfo).port;
    return upstream;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  /** Serve these echo tools from now on and send `notifications/tools/list_changed` on the open listen streams. */
  setTools(names: string[]): void {
    this.tools = names;
    this.handler.notify.toolsChanged();
  }

  /** Send `notifications/resources/updated` for `uri` on the listen streams that subscribed to it. */
  updateResource(uri: string): void {
    this.handler.notify.resourceUpdated(uri);
  }

  /** How many `subscriptions/listen` streams are open on the server now. */
  get openListens(): number {
    return (this.handler.bus as { listenerCount?: number }).listenerCount ?? 0;
  }

  /** Cut every open HTTP connection (open listen streams included), as a restart would; the server keeps serving. */
  dropConnections(): void {
    this.server?.closeAllConnections();
  }

  /** JSON-RPC methods of the requests seen, in order. */
  get methods(): Array<string | undefined> {
    return this.seen.map((r) => r.method);
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await this.handler.close();
    this.tasks?.stop();
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private createMcp(): McpServer {
    const extensions = this.tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {};
    const mcp = new McpServer(
      { name: "rev2026-upstream", version: "2.0.0" },
      {
        capabilities: {
          logging: {},
          tools: { listChanged: true },
          resources: { subscribe: true, listChanged: true },
          ...extensions,
        },
      },
    );
    if (this.tasks) this.serveTasks(mcp, this.tasks);
    mcp.registerResource(
      "status",
      "status://now",
      { description: "Changes when `updateResource` says so" },
      async () => ({
        contents: [{ uri: "status://now", text: "ok" }],
      }),
    );
    for (const name of this.tools) {
      mcp.registerTool(
        name,
        { description: `The ${name} tool`, inputSchema: z.object({ text: z.string().optional() }) },
        async ({ text }) => ({ content: [{ type: "text", text: `${name}:${text ?? ""}` }] }),
      );
    }
    mcp.registerTool(
      "work",
      { description: "Reports progress twice and logs a line before answering", inputSchema: z.object({}) },
      async (_args, ctx) => {
        const progressToken = ctx.mcpReq._meta?.progressToken;
        for (const progress of [1, 2])
          if (progressToken !== undefined)
            await ctx.mcpReq.notify({
              method: "notifications/progress",
              params: { progressToken, progress, total: 2 },
            });
        await ctx.mcpReq.log("info", "working");
        return { content: [{ type: "text", text: "done" }] };
      },
    );
    const confirmation = z.object({ confirm: z.boolean() });
    mcp.registerTool(
      "confirm",
      { description: "Asks the user to confirm", inputSchema: z.object({ text: z.string() }) },
      async ({ text }, ctx) => {
        const answer = acceptedContent(ctx.mcpReq.inputResponses, "confirm", confirmation);
        if (answer === undefined && ctx.mcpReq.inputResponses === undefined)
          return inputRequired({
            inputRequests: {
              confirm: inputRequired.elicit({ message: `Confirm ${text}?`, requestedSchema: confirmation }),
            },
          });
        return { content: [{ type: "text", text: answer?.confirm ? `confirmed:${text}` : "declined" }] };
      },
    );
    return mcp;
  }

  private serveTasks(mcp: McpServer, tasks: FixtureTasks): void {
    mcp.registerTool(
      "slow",
      {
        description:
          "Answers `slow:<seconds>` (and the note, if any) after some seconds; as a task to a client that declares tasks",
        inputSchema: z.object({ seconds: z.number(), note: z.string().optional() }),
      },
      async ({ seconds, note }) => {
        const result = { content: [{ type: "text" as const, text: `slow:${seconds}${note ? ` ${note}` : ""}` }] };
        if (!tasks.declared(mcp)) return result;
        return tasks.start(async (signal) => (await sleep(seconds * 1000, signal), result)) as never;
      },
    );
    tasks.serve(mcp);
  }

  /** The discover answer (JSON or one SSE event) without the capabilities named in `undeclared`. */
  private async withoutUndeclared(response: Response): Promise<Response> {
    const strip = (json: string) => {
      const message = JSON.parse(json) as { result?: { capabilities?: Record<string, unknown> } };
      for (const name of this.undeclared) delete message.result?.capabilities?.[name];
      return JSON.stringify(message);
    };
    const text = await response.text();
    const body = text.trimStart().startsWith("{")
      ? strip(text)
      : text.replace(/^data: (.*)$/gm, (_line, json: string) => `data: ${strip(json)}`);
    const headers = new Headers(response.headers);
    headers.delete("content-length");
    return new Response(body, { status: response.status, headers });
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      let raw = Buffer.concat(chunks);
      let body: unknown;
      try {
        body = raw.length > 0 ? JSON.parse(raw.toString("utf8")) : undefined;
      } catch {
        body = undefined;
      }
      const method = body && typeof body === "object" && "method" in body ? String(body.method) : undefined;
      this.seen.push({ method, headers: req.headers, body });
      const meta = (body as { params?: { _meta?: Record<string, unknown> } } | undefined)?.params?._meta;
      if (this.ignoreClientCapabilities && meta) {
        meta[CLIENT_CAPABILITIES] = { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} };
        raw = Buffer.from(JSON.stringify(body));
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (Array.isArray(value)) for (const v of value) headers.append(name, v);
        else if (value !== undefined) headers.set(name, value);
      }
      const controller = new AbortController();
      const request = new Request(`http://127.0.0.1:${this.port}${req.url ?? "/"}`, {
        method: req.method,
        headers,
        body: req.method === "GET" || req.method === "HEAD" || raw.length === 0 ? undefined : raw,
        signal: controller.signal,
      });
      this.open.add(request);
      res.on("close", () => {
        controller.abort();
        this.open.delete(request);
      });
      const rejected = this.loopbackHostsOnly
        ? (hostHeaderValidationResponse(request, localhostAllowedHostnames()) ??
          originValidationResponse(request, localhostAllowedOrigins()))
        : undefined;
      let response = rejected ?? (await this.handler.fetch(request));
      if (method === "server/discover" && this.undeclared.length > 0) response = await this.withoutUndeclared(response);
      res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
      if (!response.body) {
        res.end();
        return;
      }
      // Unlike pipe(), a response that closes first cancels the body too (the SDK ends a listen stream on cancel).
      await pipeline(Readable.fromWeb(response.body as import("node:stream/web").ReadableStream), res).catch(() => {});
    } catch (error) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(error));
    }
  }
}
