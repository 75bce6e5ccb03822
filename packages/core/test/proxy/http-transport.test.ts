import { randomUUID } from "node:crypto";
import { createServer, type Server as NodeHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  LATEST_PROTOCOL_VERSION,
  LoggingMessageNotificationSchema,
  McpError,
  ToolListChangedNotificationSchema,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createProxyServer } from "../../src/proxy";
import { writeJsonRpcError } from "../../src/proxy/http-answers";
import { HttpSessionTransport } from "../../src/proxy/http-transport";
import { demoServer } from "../fixtures/demo-server";
import { createHarness } from "../fixtures/proxy-harness";
import { startStreamableHttpServer } from "../fixtures/streamable-http-server";

// ---------------------------------------------------------------------------------------------------------------
// A real node:http host, as an app would write it: it reads and parses the body, finds the session by its
// mcp-session-id (a new transport and server on initialize) and hands the request to transport.handle.
// ---------------------------------------------------------------------------------------------------------------

interface HostedSession {
  transport: HttpSessionTransport;
  server: Server;
  /** Calls of the transport's onDelete. */
  deletes: number;
  /** Calls of the server's onclose. */
  closes: number;
  errors: Error[];
}

interface Host {
  url: string;
  /** Sessions stay here after they close, so later requests reach the closed transport itself. */
  sessions: Map<string, HostedSession>;
  /** The initialize request of each session, as a shared session store would keep it. */
  initializeRequests: Map<string, JSONRPCRequest>;
  /** Responses whose client hung up before they were complete. */
  hangUps: number;
  /** Errors thrown by the request handling (should stay empty). */
  failures: unknown[];
  /** Makes a transport + server for a session id that this host did not initialize (another process did). */
  adopt(sessionId: string): Promise<HostedSession>;
  close(): Promise<void>;
}

const cleanups: (() => Promise<void>)[] = [];
const hosts: Host[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  for (const host of hosts.splice(0)) expect(host.failures).toEqual([]);
});

function isInitialize(body: unknown): body is JSONRPCRequest {
  return typeof body === "object" && body !== null && (body as { method?: unknown }).method === "initialize";
}

interface HostOptions {
  keepAliveMs?: number;
  /** Awaited after the body was read, before transport.handle (an app looks the session up, checks the token). */
  beforeHandle?: () => Promise<void>;
}

async function startHost(build: () => McpServer | Server, options: HostOptions = {}): Promise<Host> {
  const sessions = new Map<string, HostedSession>();
  const initializeRequests = new Map<string, JSONRPCRequest>();

  const adopt = async (sessionId: string): Promise<HostedSession> => {
    const built = build();
    const server = built instanceof McpServer ? built.server : built;
    const entry: HostedSession = {
      transport: new HttpSessionTransport({
        sessionId,
        keepAliveMs: options.keepAliveMs,
        onDelete: () => void entry.deletes++,
      }),
      server,
      deletes: 0,
      closes: 0,
      errors: [],
    };
    await built.connect(entry.transport);
    server.onclose = () => void entry.closes++;
    server.onerror = (error) => void entry.errors.push(error);
    sessions.set(sessionId, entry);
    return entry;
  };

  const http: NodeHttpServer = createServer((req, res) => {
    res.on("close", () => {
      if (!res.writableFinished) host.hangUps++;
    });
    void (async () => {
      let body: unknown;
      if (req.method === "POST") {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        } catch {
          return writeJsonRpcError(res, 400, -32700, "Parse error");
        }
      }
      const id = req.headers["mcp-session-id"];
      let session = typeof id === "string" ? sessions.get(id) : undefined;
      if (!session) {
        if (id !== undefined) return writeJsonRpcError(res, 404, -32001, "Session not found");
        if (req.method !== "POST" || !isInitialize(body))
          return writeJsonRpcError(res, 400, -32000, "Bad Request: no session");
        const sessionId = randomUUID();
        session = await adopt(sessionId);
        initializeRequests.set(sessionId, body);
      }
      await options.beforeHandle?.();
      await session.transport.handle(req, res, body);
    })().catch((error: unknown) => {
      host.failures.push(error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const host: Host = {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    sessions,
    initializeRequests,
    hangUps: 0,
    failures: [],
    adopt,
    async close() {
      await Promise.all([...sessions.values()].map((s) => s.transport.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
  hosts.push(host);
  cleanups.push(() => host.close());
  return host;
}

// ---------------------------------------------------------------------------------------------------------------
// The MCP server behind the transport: real SDK tools that answer, report progress, log and wait.
// ---------------------------------------------------------------------------------------------------------------

interface Gate {
  promise: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** What the tools of `testServer` let a test see and steer. */
let controls: { slow: Gate; entered: number; finished: number; counted: number };
beforeEach(() => {
  controls = { slow: gate(), entered: 0, finished: 0, counted: 0 };
});
// A test that fails half-way must not leave a handler waiting forever.
afterEach(() => controls.slow.open());

function testServer(): McpServer {
  const server = new McpServer({ name: "transport-test", version: "1.0.0" }, { capabilities: { logging: {} } });
  server.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text: `echo: ${text}` }],
  }));
  server.registerTool("count", {}, async () => {
    controls.counted++;
    return { content: [{ type: "text", text: `counted ${controls.counted}` }] };
  });
  server.registerTool("progress", { inputSchema: { steps: z.number() } }, async ({ steps }, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      if (token !== undefined) {
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: i, total: steps },
        });
      }
    }
    return { content: [{ type: "text", text: `done ${steps}` }] };
  });
  server.registerTool("log", { inputSchema: { lines: z.array(z.string()) } }, async ({ lines }, extra) => {
    for (const line of lines)
      await extra.sendNotification({ method: "notifications/message", params: { level: "info", data: line } });
    return { content: [{ type: "text", text: `logged ${lines.length}` }] };
  });
  // Reports `before` progress steps, waits for controls.slow, then reports `after` more and answers.
  server.registerTool(
    "slow",
    { inputSchema: { before: z.number().default(0), after: z.number().default(0) } },
    async ({ before, after }, extra) => {
      const token = extra._meta?.progressToken;
      const report = async (progress: number) => {
        if (token !== undefined)
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress },
          });
      };
      for (let i = 1; i <= before; i++) await report(i);
      controls.entered++;
      await controls.slow.promise;
      for (let i = 1; i <= after; i++) await report(before + i);
      controls.finished++;
      return { content: [{ type: "text", text: "slow done" }] };
    },
  );
  server.registerTool("whoami", {}, async () => ({
    content: [{ type: "text", text: server.server.getClientVersion()?.name ?? "nobody" }],
  }));
  return server;
}

// ---------------------------------------------------------------------------------------------------------------
// Clients: the SDK one (with every HTTP exchange recorded), and raw fetch.
// ---------------------------------------------------------------------------------------------------------------

interface Exchange {
  method: string;
  /** The JSON-RPC method(s) of a POST body, or "response" for an answer to the server. */
  rpc: string;
  status: number;
  contentType: string | null;
  sessionId: string | null;
}

function describeBody(body: unknown): string {
  if (typeof body !== "string") return "";
  const parsed = JSON.parse(body) as { method?: string } | { method?: string }[];
  const one = (m: { method?: string }) => m.method ?? "response";
  return Array.isArray(parsed) ? parsed.map(one).join(",") : one(parsed);
}

async function connectClient(host: Host, options: { name?: string; sessionId?: string } = {}) {
  const log: Exchange[] = [];
  const recordingFetch: FetchLike = async (url, init) => {
    const response = await fetch(url, init);
    log.push({
      method: init?.method ?? "GET",
      rpc: describeBody(init?.body),
      status: response.status,
      contentType: response.headers.get("content-type"),
      sessionId: response.headers.get("mcp-session-id"),
    });
    return response;
  };
  const transport = new StreamableHTTPClientTransport(new URL(host.url), {
    fetch: recordingFetch,
    sessionId: options.sessionId,
    // A GET stream that the server ends is not reopened: the tests decide what happens next.
    reconnectionOptions: {
      maxRetries: 0,
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 1,
    },
  });
  const client = new Client({ name: options.name ?? "sdk-client", version: "1.0.0" });
  const errors: Error[] = [];
  client.onerror = (error) => void errors.push(error);
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, transport, log, errors };
}

const ACCEPT_BOTH = "application/json, text/event-stream";

function rpcPost(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: ACCEPT_BOTH, ...headers },
    body: JSON.stringify(body),
    signal,
  });
}

function initializeRequest(id: string | number, clientName = "raw-client"): JSONRPCRequest {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: clientName, version: "0" },
    },
  };
}

const call = (
  id: string | number,
  name: string,
  args: Record<string, unknown> = {},
  progressToken?: string,
): JSONRPCRequest => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, ...(progressToken ? { _meta: { progressToken } } : {}) },
});

/** An initialized session over raw HTTP; returns the headers its later requests carry. */
async function rawSession(
  host: Host,
): Promise<{ sessionId: string; session: HostedSession; headers: Record<string, string> }> {
  const init = await rpcPost(host.url, initializeRequest(0));
  expect(init.status).toBe(200);
  const sessionId = init.headers.get("mcp-session-id") ?? "";
  await init.json();
  const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": LATEST_PROTOCOL_VERSION };
  expect((await rpcPost(host.url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status).toBe(202);
  const session = host.sessions.get(sessionId);
  if (!session) throw new Error("no session");
  return { sessionId, session, headers };
}

/** The JSON-RPC messages of an SSE body; every event must be an `event: message`. */
function sseMessages(text: string): JSONRPCMessage[] {
  const messages: JSONRPCMessage[] = [];
  for (const block of text.split("\n\n")) {
    const lines = block.split("\n").filter((line) => line !== "" && !line.startsWith(":"));
    if (lines.length === 0) continue;
    expect(lines[0]).toBe("event: message");
    expect(lines).toHaveLength(2);
    messages.push(JSON.parse(lines[1]!.replace(/^data: /, "")) as JSONRPCMessage);
  }
  return messages;
}

/** Reads an SSE response as it arrives. */
class StreamReader {
  text = "";
  private readonly reader: ReadableStreamDefaultReader<string>;

  constructor(response: Response) {
    if (!response.body) throw new Error("no body");
    this.reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  }

  async until(predicate: (text: string) => boolean): Promise<string> {
    while (!predicate(this.text)) {
      const { value, done } = await this.reader.read();
      if (done) throw new Error(`stream ended before the expected data; got ${JSON.stringify(this.text)}`);
      this.text += value;
    }
    return this.text;
  }

  /** Resolves once the server ended the stream. */
  async end(): Promise<string> {
    for (;;) {
      const { value, done } = await this.reader.read();
      if (done) return this.text;
      this.text += value;
    }
  }

  messages(): JSONRPCMessage[] {
    return sseMessages(this.text);
  }
}

function openGet(host: Host, headers: Record<string, string>, accept = "text/event-stream") {
  const abort = new AbortController();
  cleanups.push(async () => abort.abort());
  return { abort, response: fetch(host.url, { headers: { accept, ...headers }, signal: abort.signal }) };
}

/** Lets every callback queued on the event loop run (an answer the server is about to send, for example). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

const resultText = (message: unknown) =>
  (message as { result: { content: { text: string }[] } }).result.content[0]?.text;
const byId = (messages: unknown[], id: string | number) => messages.find((m) => (m as { id?: unknown }).id === id);

// ---------------------------------------------------------------------------------------------------------------

describe("HttpSessionTransport with the SDK client", () => {
  it("answers initialize, tools/list and tools/call with plain JSON, each response with the session id", async () => {
    const host = await startHost(testServer);
    const { client, transport, log } = await connectClient(host);

    expect(client.getServerVersion()).toEqual({ name: "transport-test", version: "1.0.0" });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["echo", "count", "progress", "log", "slow", "whoami"]);
    const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
    expect(result.content).toEqual([{ type: "text", text: "echo: hi" }]);

    const sessionId = transport.sessionId;
    expect(sessionId).toBeDefined();
    expect([...host.sessions.keys()]).toEqual([sessionId]);
    expect(log.filter((e) => e.method === "POST").map((e) => [e.rpc, e.status, e.contentType])).toEqual([
      ["initialize", 200, "application/json"],
      ["notifications/initialized", 202, null],
      ["tools/list", 200, "application/json"],
      ["tools/call", 200, "application/json"],
    ]);
    expect(log.every((e) => e.sessionId === sessionId)).toBe(true);
  });

  it("streams a call whose tool reports progress: every step, then the result, on an SSE answer", async () => {
    const host = await startHost(testServer);
    const { client, log } = await connectClient(host);
    const progress: { progress: number; total?: number }[] = [];

    const result = await client.callTool({ name: "progress", arguments: { steps: 3 } }, undefined, {
      onprogress: (p) => progress.push({ progress: p.progress, total: p.total }),
    });

    expect(result.content).toEqual([{ type: "text", text: "done 3" }]);
    expect(progress).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
    const streamed = log.filter((e) => e.rpc === "tools/call");
    expect(streamed).toHaveLength(1);
    expect(streamed[0]).toMatchObject({ status: 200, contentType: "text/event-stream" });
    expect(streamed[0]?.sessionId).toBe(log[0]?.sessionId);

    // The switch is per response: the next call without notifications is plain JSON again.
    await client.callTool({ name: "echo", arguments: { text: "after" } });
    expect(log.filter((e) => e.rpc === "tools/call").at(-1)?.contentType).toBe("application/json");
  });

  it("delivers the log messages a tool sends during its call, before its result", async () => {
    const host = await startHost(testServer);
    const { client, log } = await connectClient(host);
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));

    const result = await client.callTool({ name: "log", arguments: { lines: ["one", "two"] } });

    expect(result.content).toEqual([{ type: "text", text: "logged 2" }]);
    await expect.poll(() => logs).toEqual(["one", "two"]);
    expect(log.find((e) => e.rpc === "tools/call")?.contentType).toBe("text/event-stream");
  });

  it("carries an upstream's progress and log messages through createProxyServer", async () => {
    const harness = createHarness();
    const upstream = await startStreamableHttpServer(demoServer());
    cleanups.push(() => upstream.stop());
    cleanups.push(() => harness.close());
    await harness.install("alice", "a1", "demo", upstream);
    const host = await startHost(
      () =>
        createProxyServer({
          member: { userId: "alice" },
          catalogue: harness.app,
          upstreams: harness.app.upstreams,
          status: harness.app,
          rediscovery: harness.app,
          calls: harness.app,
          retry: { sleep: async () => {} },
        }).server,
    );
    const { client, log } = await connectClient(host);
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
    const progress: number[] = [];

    const result = await client.callTool({ name: "demo-progress", arguments: { steps: 2 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });

    expect(result.content).toEqual([{ type: "text", text: "done 2" }]);
    expect(progress).toEqual([1, 2]);
    await expect.poll(() => logs).toEqual(["step 1", "step 2"]);
    expect(log.find((e) => e.rpc === "tools/call")?.contentType).toBe("text/event-stream");
  });

  it("sends notifications/tools/list_changed on the client's GET stream, where the SDK handler gets it", async () => {
    const host = await startHost(testServer);
    const { client, transport, log } = await connectClient(host);
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    // The SDK client opens its GET stream on its own once initialized.
    await expect
      .poll(() => log.find((e) => e.method === "GET"))
      .toMatchObject({ status: 200, contentType: "text/event-stream" });

    await host.sessions.get(transport.sessionId ?? "")?.server.sendToolListChanged();

    await expect.poll(() => changed).toBe(1);
  });

  it("answers a request still running when the transport closes with 'Session closed', and closes the server", async () => {
    const host = await startHost(testServer);
    const { client, transport } = await connectClient(host);
    const session = host.sessions.get(transport.sessionId ?? "");
    if (!session) throw new Error("no session");
    const pending = client.callTool({ name: "slow", arguments: {} }).then(
      () => "answered",
      (error: unknown) => error,
    );
    await expect.poll(() => controls.entered).toBe(1);

    await session.transport.close();

    const error = await pending;
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32000);
    expect((error as McpError).message).toMatch(/Session closed/);
    expect(session.closes).toBe(1);
    expect(session.transport.isClosed).toBe(true);
    // The session is gone for good: its requests get 404 from the transport itself.
    const later = await client.listTools().catch((e: unknown) => e);
    expect(later).toBeInstanceOf(StreamableHTTPError);
    expect((later as StreamableHTTPError).code).toBe(404);
    // The handler finishing afterwards has nowhere to answer, and that is no error.
    controls.slow.open();
    await expect.poll(() => controls.finished).toBe(1);
    await settle();
    expect(session.errors).toEqual([]);
    expect(session.closes).toBe(1);
  });

  it("rebuilds a session on another host from its stored initialize request with replay()", async () => {
    const first = await startHost(testServer);
    const { transport: original } = await connectClient(first, { name: "original-client" });
    const sessionId = original.sessionId ?? "";
    const stored = first.initializeRequests.get(sessionId);
    if (!stored) throw new Error("initialize was not stored");

    // Another process gets a request for a session it never saw: it replays the initialize first.
    const second = await startHost(testServer);
    const session = await second.adopt(sessionId);
    const answer = await session.transport.replay(stored);

    expect(answer).toMatchObject({
      jsonrpc: "2.0",
      id: stored.id,
      result: { protocolVersion: LATEST_PROTOCOL_VERSION, serverInfo: { name: "transport-test", version: "1.0.0" } },
    });
    expect(session.server.getClientVersion()).toEqual({ name: "original-client", version: "1.0.0" });

    // The client carries on with its session id; it never initializes on the second host.
    const { client, log } = await connectClient(second, { sessionId });
    const who = await client.callTool({ name: "whoami", arguments: {} });
    expect(who.content).toEqual([{ type: "text", text: "original-client" }]);
    expect((await client.listTools()).tools).toHaveLength(6);
    expect(log.map((e) => e.rpc)).toEqual(["tools/call", "tools/list"]);
    expect(log.every((e) => e.status === 200 && e.sessionId === sessionId)).toBe(true);
  });
});

describe("HttpSessionTransport over raw HTTP", () => {
  it("answers a batch of two requests with a JSON array", async () => {
    const host = await startHost(testServer);
    const { sessionId, headers } = await rawSession(host);

    const response = await rpcPost(
      host.url,
      [
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        call("two", "echo", { text: "b" }),
        { jsonrpc: "2.0", method: "notifications/roots/list_changed" },
      ],
      headers,
    );

    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("mcp-session-id")).toBe(sessionId);
    const body = (await response.json()) as unknown[];
    expect(body).toHaveLength(2);
    expect((byId(body, 1) as { result: { tools: unknown[] } }).result.tools).toHaveLength(6);
    expect(resultText(byId(body, "two"))).toBe("echo: b");
  });

  it("switches a batch to SSE when a notification comes, sending the answer it already had first", async () => {
    const host = await startHost(testServer);
    const { headers } = await rawSession(host);

    const pending = rpcPost(
      host.url,
      [call("quick", "echo", { text: "q" }), call("late", "slow", { after: 2 }, "tok")],
      headers,
    );
    // The echo is answered while the slow tool waits: held back, as the POST might still be answered with JSON.
    await expect.poll(() => controls.entered).toBe(1);
    await settle();
    controls.slow.open();

    const response = await pending;
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const messages = sseMessages(await response.text());
    expect(messages).toEqual([
      { jsonrpc: "2.0", id: "quick", result: { content: [{ type: "text", text: "echo: q" }] } },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "tok", progress: 1 } },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "tok", progress: 2 } },
      { jsonrpc: "2.0", id: "late", result: { content: [{ type: "text", text: "slow done" }] } },
    ]);
  });

  it("answers with JSON only, dropping the call's notifications, when Accept has no text/event-stream", async () => {
    const host = await startHost(testServer, { keepAliveMs: 0 });
    const { session, headers } = await rawSession(host);
    const get = openGet(host, headers);
    const stream = new StreamReader(await get.response);

    const response = await rpcPost(host.url, call(7, "progress", { steps: 2 }, "tok"), {
      ...headers,
      accept: "application/json",
    });

    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: 7,
      result: { content: [{ type: "text", text: "done 2" }] },
    });
    // Nor did they go to the GET stream: the next thing on it is the list_changed sent now.
    await session.server.sendToolListChanged();
    await stream.until((text) => text.includes("\n\n"));
    expect(stream.messages()).toEqual([{ jsonrpc: "2.0", method: "notifications/tools/list_changed" }]);

    // Accept: */* allows the switch.
    const any = await rpcPost(host.url, call(8, "progress", { steps: 1 }, "tok"), { ...headers, accept: "*/*" });
    expect(any.headers.get("content-type")).toBe("text/event-stream");
    expect(sseMessages(await any.text()).map((m) => ("method" in m ? m.method : m.id))).toEqual([
      "notifications/progress",
      8,
    ]);
  });

  it("answers a POST of notifications only with 202 and delivers them to the server", async () => {
    const host = await startHost(testServer);
    const init = await rpcPost(host.url, initializeRequest(1));
    expect(init.headers.get("content-type")).toBe("application/json");
    expect(await init.json()).toMatchObject({
      jsonrpc: "2.0",
      id: 1,
      result: { serverInfo: { name: "transport-test" } },
    });
    const sessionId = init.headers.get("mcp-session-id") ?? "";
    const session = host.sessions.get(sessionId);
    if (!session) throw new Error("no session");
    let initialized = 0;
    session.server.oninitialized = () => void initialized++;

    const response = await rpcPost(
      host.url,
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { "mcp-session-id": sessionId },
    );

    expect(response.status).toBe(202);
    expect(response.headers.get("mcp-session-id")).toBe(sessionId);
    expect(await response.text()).toBe("");
    expect(initialized).toBe(1);
  });

  it("sends a server request unrelated to any call on the GET stream and takes the client's answer with a 202", async () => {
    const host = await startHost(testServer);
    const { session, headers } = await rawSession(host);
    const stream = new StreamReader(await openGet(host, headers).response);

    const ping = session.server.ping();
    await stream.until((text) => text.includes("\n\n"));
    const [request] = stream.messages();
    expect(request).toMatchObject({ jsonrpc: "2.0", method: "ping" });
    const response = await rpcPost(
      host.url,
      { jsonrpc: "2.0", id: (request as JSONRPCRequest).id, result: {} },
      headers,
    );

    expect(response.status).toBe(202);
    await expect(ping).resolves.toEqual({});
  });

  it("keeps one GET stream per session: keep-alive comments, 409 for a second one, 406 without the Accept", async () => {
    const host = await startHost(testServer, { keepAliveMs: 20 });
    const { sessionId, session, headers } = await rawSession(host);

    const notAcceptable = await fetch(host.url, { headers: { ...headers, accept: "application/json" } });
    expect(notAcceptable.status).toBe(406);
    expect(await notAcceptable.json()).toMatchObject({ error: { code: -32600 } });

    const first = openGet(host, headers);
    const response = await first.response;
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("mcp-session-id")).toBe(sessionId);

    const second = await fetch(host.url, { headers: { ...headers, accept: "text/event-stream" } });
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });

    const stream = new StreamReader(response);
    await stream.until((text) => text.includes(": keep-alive\n\n"));
    await session.server.sendToolListChanged();
    await stream.until((text) => text.includes("list_changed"));
    expect(stream.messages()).toEqual([{ jsonrpc: "2.0", method: "notifications/tools/list_changed" }]);

    // Once the first stream is gone, the client may open another.
    first.abort.abort();
    await expect.poll(() => host.hangUps).toBe(1);
    const third = openGet(host, headers);
    expect((await third.response).status).toBe(200);
  });

  it("ends the session on DELETE: onDelete and the server's onclose run, the GET stream ends, later requests get 404", async () => {
    const host = await startHost(testServer);
    const { sessionId, session, headers } = await rawSession(host);
    const stream = new StreamReader(await openGet(host, headers).response);

    const response = await fetch(host.url, { method: "DELETE", headers });

    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBe(sessionId);
    expect(session.deletes).toBe(1);
    expect(session.closes).toBe(1);
    expect(session.transport.isClosed).toBe(true);
    await stream.end();
    const after = await rpcPost(host.url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, headers);
    expect(after.status).toBe(404);
    expect(await after.json()).toMatchObject({ error: { code: -32001 } });
    const again = await fetch(host.url, { method: "DELETE", headers });
    expect(again.status).toBe(404);
    expect(session.deletes).toBe(1);
  });

  it("still ends the session and answers 200 when the host's onDelete fails, reporting the failure", async () => {
    const errors: Error[] = [];
    const transport = new HttpSessionTransport({
      sessionId: "s-del",
      onDelete: () => {
        throw new Error("redis is down");
      },
    });
    transport.onerror = (error) => void errors.push(error);
    const server = new Server({ name: "t", version: "1" }, { capabilities: {} });
    await server.connect(transport);
    const http = createServer((req, res) => void transport.handle(req, res));
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, {
        method: "DELETE",
      });
      expect(response.status).toBe(200);
      expect(transport.isClosed).toBe(true);
      expect(errors.map((e) => e.message)).toEqual(["redis is down"]);
    } finally {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it("answers a replay with 'Session closed' when the transport is closed or not connected to a server", async () => {
    const request = initializeRequest("replayed");
    const unconnected = new HttpSessionTransport({ sessionId: "s-1" });
    expect(await unconnected.replay(request)).toMatchObject({
      id: "replayed",
      error: { code: -32000, message: "Session closed" },
    });

    const closed = new HttpSessionTransport({ sessionId: "s-2" });
    await new Server({ name: "t", version: "1" }, { capabilities: {} }).connect(closed);
    await closed.close();
    expect(await closed.replay(request)).toMatchObject({ id: "replayed", error: { code: -32000 } });
  });

  it("refuses an unsupported mcp-protocol-version with 400 and runs nothing", async () => {
    const host = await startHost(testServer);
    const { headers } = await rawSession(host);

    const response = await rpcPost(host.url, call(1, "count"), { ...headers, "mcp-protocol-version": "1999-01-01" });

    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toContain("1999-01-01");
    const get = await fetch(host.url, {
      headers: { ...headers, accept: "text/event-stream", "mcp-protocol-version": "1999-01-01" },
    });
    expect(get.status).toBe(400);
    expect(controls.counted).toBe(0);
    // An older version that the SDK supports is fine.
    const older = await rpcPost(host.url, call(2, "count"), { ...headers, "mcp-protocol-version": "2025-03-26" });
    expect(older.status).toBe(200);
    expect(resultText(await older.json())).toBe("counted 1");
  });

  it("refuses a POST that is not JSON-RPC with 400 and the message's id when it has a usable one", async () => {
    const host = await startHost(testServer);
    const { headers } = await rawSession(host);
    const invalid: [unknown, string | number | null, number][] = [
      [{ jsonrpc: "1.0", id: 1, method: "ping" }, 1, -32600],
      [{ jsonrpc: "2.0", id: 1 }, 1, -32600],
      [{ jsonrpc: "2.0", id: null, method: "ping" }, null, -32600],
      [{ jsonrpc: "2.0", id: { nested: true }, method: "ping" }, null, -32600],
      // What the SDK's Protocol drops without an answer (the POST used to hang): a fractional id, params that are
      // not an object, an object progress token, a member JSON-RPC does not define.
      [{ jsonrpc: "2.0", id: 1.5, method: "tools/call", params: { name: "count" } }, null, -32600],
      [{ jsonrpc: "2.0", id: "a", method: "tools/call", params: ["count"] }, "a", -32602],
      [
        { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "count", _meta: { progressToken: { x: 1 } } } },
        7,
        -32602,
      ],
      [{ jsonrpc: "2.0", id: 8, method: "ping", extra: true }, 8, -32600],
      ["ping", null, -32600],
      [[], null, -32600],
    ];

    for (const [body, id, code] of invalid) {
      const response = await rpcPost(host.url, body, headers);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(await response.json(), JSON.stringify(body)).toEqual({
        jsonrpc: "2.0",
        id,
        error: { code, message: expect.any(String) },
      });
    }
    expect(controls.counted).toBe(0);
    // The session is unharmed.
    expect(resultText(await (await rpcPost(host.url, call(2, "count"), headers)).json())).toBe("counted 1");
  });

  it("refuses a batch with an invalid message as a whole, answering each of its requests", async () => {
    const host = await startHost(testServer);
    const { headers } = await rawSession(host);
    const response = await rpcPost(
      host.url,
      [call(1, "count"), { jsonrpc: "2.0", id: 2, method: "tools/call", params: 5 }, { not: "json-rpc" }],
      headers,
    );
    expect(response.status).toBe(400);
    const answers = (await response.json()) as { id: unknown; error: { code: number } }[];
    expect(answers.map((a) => [a.id, a.error.code])).toEqual([
      [1, -32600],
      [2, -32602],
      [null, -32600],
    ]);
    const duplicate = await rpcPost(host.url, [call(3, "count"), call(3, "count")], headers);
    expect(duplicate.status).toBe(400);
    expect(controls.counted).toBe(0);
  });

  it("refuses a request whose id is still in progress in the session, and answers both POSTs", async () => {
    const host = await startHost(testServer);
    const { headers } = await rawSession(host);
    const slow = rpcPost(host.url, call(5, "slow"), headers);
    await expect.poll(() => controls.entered).toBe(1);
    const again = await rpcPost(host.url, call(5, "count"), headers);
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({
      id: 5,
      error: { code: -32600, message: expect.stringContaining("still in progress") },
    });
    controls.slow.open();
    expect((await slow).status).toBe(200);
    expect(controls.counted).toBe(0);
  });

  it("ends a cancelled request's POST with an error instead of leaving it open", async () => {
    const host = await startHost(testServer);
    const { headers } = await rawSession(host);
    const slow = rpcPost(host.url, call(6, "slow"), headers);
    await expect.poll(() => controls.entered).toBe(1);
    const cancel = await rpcPost(
      host.url,
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 6, reason: "user" } },
      headers,
    );
    expect(cancel.status).toBe(202);
    const answer = await slow;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ id: 6, error: { code: -32800 } });
  });

  it("answers other methods with 405 and an Allow header", async () => {
    const host = await startHost(testServer);
    const { headers } = await rawSession(host);
    for (const method of ["PUT", "PATCH"]) {
      const response = await fetch(host.url, {
        method,
        headers: { ...headers, "content-type": "application/json" },
        body: "{}",
      });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("GET, POST, DELETE");
    }
  });

  it("on close(), ends a streaming call with a 'Session closed' error event and answers a batch with what it has", async () => {
    const host = await startHost(testServer);
    const { session, headers } = await rawSession(host);
    const get = new StreamReader(await openGet(host, headers).response);

    const streaming = new StreamReader(await rpcPost(host.url, call("s", "slow", { before: 1 }, "tok"), headers));
    await streaming.until((text) => text.includes("\n\n"));
    const batch = rpcPost(host.url, [call("e", "echo", { text: "x" }), call("w", "slow")], headers);
    await expect.poll(() => controls.entered).toBe(2);
    await settle();

    await session.transport.close();

    const closedError = (id: string) => ({ jsonrpc: "2.0", id, error: { code: -32000, message: "Session closed" } });
    expect(sseMessages(await streaming.end())).toEqual([
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "tok", progress: 1 } },
      closedError("s"),
    ]);
    const answer = await batch;
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(await answer.json()).toEqual([
      { jsonrpc: "2.0", id: "e", result: { content: [{ type: "text", text: "echo: x" }] } },
      closedError("w"),
    ]);
    await get.end();
    expect(session.closes).toBe(1);
    const after = await rpcPost(host.url, call(1, "echo", { text: "y" }), headers);
    expect(after.status).toBe(404);
    expect(await after.json()).toMatchObject({
      error: { code: -32001, message: expect.stringContaining("Session not found") },
    });
  });

  it("drops the answer of a POST whose client hung up, and serves the session's later requests", async () => {
    const host = await startHost(testServer);
    const { session, headers } = await rawSession(host);
    const abort = new AbortController();
    const gone = rpcPost(host.url, call("gone", "slow"), headers, abort.signal).catch((e: unknown) => e);
    await expect.poll(() => controls.entered).toBe(1);

    abort.abort();
    expect(await gone).toBeInstanceOf(Error);
    await expect.poll(() => host.hangUps).toBe(1);
    controls.slow.open();
    await expect.poll(() => controls.finished).toBe(1);
    await settle();

    const later = await rpcPost(host.url, call("later", "echo", { text: "still here" }), headers);
    expect(later.status).toBe(200);
    expect(await later.json()).toEqual({
      jsonrpc: "2.0",
      id: "later",
      result: { content: [{ type: "text", text: "echo: still here" }] },
    });
    expect(session.errors).toEqual([]);
    expect(session.transport.isClosed).toBe(false);
  });

  it("runs and quietly drops a request whose client hung up before the host handed it to the transport", async () => {
    let hold: Gate | undefined;
    let held = 0;
    const host = await startHost(testServer, {
      beforeHandle: async () => {
        if (!hold) return;
        held++;
        await hold.promise;
      },
    });
    const { session, headers } = await rawSession(host);
    hold = gate();
    const abort = new AbortController();
    const gone = rpcPost(host.url, call("gone", "count"), headers, abort.signal).catch((e: unknown) => e);
    await expect.poll(() => held).toBe(1);
    abort.abort();
    expect(await gone).toBeInstanceOf(Error);
    await expect.poll(() => host.hangUps).toBe(1);

    // The response is already closed when handle() gets it.
    hold.open();
    hold = undefined;
    await expect.poll(() => controls.counted).toBe(1);
    await settle();

    const later = await rpcPost(host.url, call("later", "count"), headers);
    expect(await later.json()).toEqual({
      jsonrpc: "2.0",
      id: "later",
      result: { content: [{ type: "text", text: "counted 2" }] },
    });
    expect(session.errors).toEqual([]);
  });

  it("drops the rest of a streaming call whose client hung up mid-stream, and serves the session's later requests", async () => {
    const host = await startHost(testServer);
    const { session, headers } = await rawSession(host);
    const abort = new AbortController();
    const stream = new StreamReader(
      await rpcPost(host.url, call("gone", "slow", { before: 1, after: 2 }, "tok"), headers, abort.signal),
    );
    await stream.until((text) => text.includes("\n\n"));

    abort.abort();
    await expect.poll(() => host.hangUps).toBe(1);
    // Two more progress notifications and the result now go to a closed response.
    controls.slow.open();
    await expect.poll(() => controls.finished).toBe(1);
    await settle();

    const later = await rpcPost(host.url, call("later", "progress", { steps: 1 }, "tok2"), headers);
    expect(later.headers.get("content-type")).toBe("text/event-stream");
    expect(sseMessages(await later.text())).toEqual([
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "tok2", progress: 1, total: 1 } },
      { jsonrpc: "2.0", id: "later", result: { content: [{ type: "text", text: "done 1" }] } },
    ]);
    expect(session.errors).toEqual([]);
  });
});

describe("writeJsonRpcError", () => {
  it("writes a JSON-RPC error without id as the whole answer, or just ends a response already started", async () => {
    const http = createServer((req, res) => {
      if (req.url === "/started") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write("event: message\ndata: {}\n\n");
      }
      writeJsonRpcError(res, 429, -32000, "Slow down", { "retry-after": "3" });
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => http.close(() => resolve())));
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

    const fresh = await fetch(`${base}/fresh`);
    expect(fresh.status).toBe(429);
    expect(fresh.headers.get("content-type")).toBe("application/json");
    expect(fresh.headers.get("retry-after")).toBe("3");
    const text = await fresh.text();
    expect(fresh.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
    expect(JSON.parse(text)).toEqual({ jsonrpc: "2.0", error: { code: -32000, message: "Slow down" }, id: null });

    const started = await fetch(`${base}/started`);
    expect(started.status).toBe(200);
    expect(await started.text()).toBe("event: message\ndata: {}\n\n");
  });
});
