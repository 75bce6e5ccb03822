import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { classifyError, withRetry } from "../src/policies";
import { ConnectionPool, UpstreamConnection, createUpstreamTransport, type ResolvedLaunch } from "../src/upstream";
import { demoServer } from "./fixtures/demo-server";
import { HttpFixture } from "./fixtures/http-fixture";
import { startSseServer } from "./fixtures/sse-server";
import { startStreamableHttpServer, type StreamableHttpFixture } from "./fixtures/streamable-http-server";
import { fixtureFetch } from "./helpers/egress";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(kind: "streamable_http" | "sse" = "streamable_http"): Promise<HttpFixture> {
  const fixture = kind === "sse" ? await startSseServer(demoServer()) : await startStreamableHttpServer(demoServer());
  cleanups.push(() => fixture.stop());
  return fixture;
}

function connectionTo(launch: ResolvedLaunch, requestTimeoutMs?: number): UpstreamConnection {
  const connection = new UpstreamConnection({
    instanceId: "inst-1",
    connector: () => createUpstreamTransport(launch, { fetch: fixtureFetch }),
    requestTimeoutMs,
  });
  cleanups.push(() => connection.close());
  return connection;
}

const noSleep = { sleep: async () => {} };

describe("UpstreamConnection over Streamable HTTP", () => {
  it("initializes and keeps the negotiated capabilities, server info and protocol version", async () => {
    const fixture = await serve();
    const connection = connectionTo({ transport: "streamable_http", url: fixture.url("/mcp"), headers: {} });
    await connection.connect();
    expect(connection.getServerVersion()).toEqual({ name: "demo", version: "1.2.3" });
    expect(connection.getServerCapabilities()).toMatchObject({ tools: {}, logging: {} });
    expect(connection.getProtocolVersion()).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(connection.getInstructions()).toBe("demo instructions");
  });

  it("reuses one session for every call instead of connecting per call", async () => {
    const fixture = await serve();
    const connection = connectionTo({ transport: "streamable_http", url: fixture.url("/mcp"), headers: {} });
    for (const text of ["a", "b", "c"]) {
      const result = await connection.callTool({ name: "echo", arguments: { text } });
      expect(result.content).toEqual([{ type: "text", text: `echo: ${text}` }]);
    }
    const initializes = fixture.requests.filter((r) => r.method === "POST" && !r.headers["mcp-session-id"]);
    // The server/discover probe (which a 2025 server refuses), then one initialize.
    expect(initializes.map((r) => r.headers["mcp-method"])).toEqual(["server/discover", undefined]);
  });

  it("sends the launch headers and the per-connection header hook on every request", async () => {
    const fixture = await serve();
    let token = "t1";
    const connection = new UpstreamConnection({
      instanceId: "inst-1",
      connector: () =>
        createUpstreamTransport(
          { transport: "streamable_http", url: fixture.url("/mcp?tier=member"), headers: { "x-team": "acme" } },
          { getHeaders: () => ({ authorization: `Bearer ${token}` }), fetch: fixtureFetch },
        ),
    });
    cleanups.push(() => connection.close());
    await connection.callTool({ name: "echo", arguments: { text: "x" } });
    token = "t2";
    await connection.callTool({ name: "echo", arguments: { text: "y" } });
    const posts = fixture.requests.filter((r) => r.method === "POST");
    expect(posts.every((r) => r.headers["x-team"] === "acme")).toBe(true);
    expect(posts[0]?.headers.authorization).toBe("Bearer t1");
    expect(posts.at(-1)?.headers.authorization).toBe("Bearer t2");
  });

  it("reconnects transparently after the server restarted and forgot the session", async () => {
    const fixture = await serve();
    const connection = connectionTo({ transport: "streamable_http", url: fixture.url("/mcp"), headers: {} });
    await connection.callTool({ name: "echo", arguments: { text: "before" } });
    await fixture.restart();
    // The request finds the kept-alive connection gone, goes again on a fresh one, hears 404 for the forgotten
    // session and runs on a new session: all within the first attempt, invisible to the retry loop.
    const { value, attempts } = await withRetry(
      () => connection.callTool({ name: "echo", arguments: { text: "after" } }),
      noSleep,
    );
    expect(value.content).toEqual([{ type: "text", text: "echo: after" }]);
    expect(attempts).toBe(1);
    expect(connection.connected).toBe(true);
  });

  it("reconnects once the server is back after being down", async () => {
    const fixture = await serve();
    const connection = connectionTo({ transport: "streamable_http", url: fixture.url("/mcp"), headers: {} });
    await connection.callTool({ name: "echo", arguments: { text: "before" } });
    await fixture.stop();
    const down = await connection.callTool({ name: "echo", arguments: { text: "down" } }).catch((e: unknown) => e);
    expect(classifyError(down).status).toBe("offline");
    await fixture.start();
    const result = await connection.callTool({ name: "echo", arguments: { text: "back" } });
    expect(result.content).toEqual([{ type: "text", text: "echo: back" }]);
  });

  it("times out a request to a hung server", async () => {
    const fixture = await serve();
    const connection = connectionTo({ transport: "streamable_http", url: fixture.url("/mcp"), headers: {} }, 300);
    await connection.connect();
    fixture.mode = "hang";
    const error = await connection.callTool({ name: "echo", arguments: { text: "x" } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.RequestTimeout);
    expect(classifyError(error)).toMatchObject({ status: "offline", retryable: true });
  });

  it("reports a 401 so that it classifies as requires_reauth", async () => {
    const fixture = await serve();
    fixture.mode = "unauthorized";
    const connection = connectionTo({ transport: "streamable_http", url: fixture.url("/mcp"), headers: {} });
    const error = await connection.connect().catch((e: unknown) => e);
    expect(classifyError(error)).toMatchObject({ status: "requires_reauth", retryable: false });
  });

  it("passes a JSON-RPC error of the server through without dropping the session", async () => {
    const fixture = await serve();
    const connection = connectionTo({ transport: "streamable_http", url: fixture.url("/mcp"), headers: {} });
    const error = await connection.getPrompt({ name: "nope" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(connection.connected).toBe(true);
  });
});

describe("UpstreamConnection when the server forgets the session (404 on a live socket)", () => {
  // No socket error happens here: the server answers, with 404, on the same keep-alive connection.
  async function forgetful(calls: { count: number }): Promise<StreamableHttpFixture> {
    const fixture = await startStreamableHttpServer(demoServer({ calls }));
    cleanups.push(() => fixture.stop());
    return fixture;
  }
  // POSTs without a session id, except the server/discover probe that precedes every initialize.
  const initializes = (fixture: HttpFixture) =>
    fixture.requests.filter(
      (r) => r.method === "POST" && r.path === "/mcp" && !r.headers["mcp-session-id"] && !r.headers["mcp-method"],
    ).length;
  const sessionIdsOfPosts = (fixture: HttpFixture) =>
    fixture.requests
      .filter((r) => r.method === "POST" && r.headers["mcp-session-id"])
      .map((r) => String(r.headers["mcp-session-id"]));

  it("initializes a new session and re-sends the request once, without the caller seeing an error", async () => {
    const calls = { count: 0 };
    const fixture = await forgetful(calls);
    const connection = connectionTo({ transport: "streamable_http", url: fixture.url("/mcp"), headers: {} });
    await connection.callTool({ name: "echo", arguments: { text: "before" } });
    const oldSession = sessionIdsOfPosts(fixture).at(-1);
    const postsOfOldSession = () => sessionIdsOfPosts(fixture).filter((id) => id === oldSession).length;
    const postsBefore = postsOfOldSession();
    expect(initializes(fixture)).toBe(1);

    fixture.forgetSessions();
    const result = await connection.callTool({ name: "echo", arguments: { text: "after" } });

    expect(result.content).toEqual([{ type: "text", text: "echo: after" }]);
    expect(initializes(fixture)).toBe(2);
    // The request with the forgotten id reached the server once (and got its 404) ...
    expect(postsOfOldSession()).toBe(postsBefore + 1);
    // ... which did not run it: the tool ran once per successful call, the re-sent request on the new session.
    expect(calls.count).toBe(2);
    const newSession = sessionIdsOfPosts(fixture).at(-1);
    expect(newSession).not.toBe(oldSession);
    expect(connection.connected).toBe(true);
    // The new session is kept for later calls.
    await connection.listTools();
    expect(initializes(fixture)).toBe(2);
    expect(sessionIdsOfPosts(fixture).at(-1)).toBe(newSession);
  });

  it("re-sends every call that was in flight when the server forgot the session, on one new session", async () => {
    const calls = { count: 0 };
    const fixture = await forgetful(calls);
    const connection = connectionTo({ transport: "streamable_http", url: fixture.url("/mcp"), headers: {} });
    await connection.callTool({ name: "echo", arguments: { text: "before" } });
    fixture.forgetSessions();
    const results = await Promise.all(
      ["a", "b", "c"].map((text) => connection.callTool({ name: "echo", arguments: { text } })),
    );
    expect(results.map((r) => r.content)).toEqual(
      ["a", "b", "c"].map((text) => [{ type: "text", text: `echo: ${text}` }]),
    );
    // One tool run per call: the forgotten session ran none of them.
    expect(calls.count).toBe(4);
    expect(initializes(fixture)).toBeLessThanOrEqual(3);
  });

  it("also recovers a call made through the connection pool", async () => {
    const calls = { count: 0 };
    const fixture = await forgetful(calls);
    const pool = new ConnectionPool({
      resolve: async () => ({
        launch: { transport: "streamable_http", url: fixture.url("/mcp"), headers: {} },
        fetch: fixtureFetch,
      }),
    });
    cleanups.push(() => pool.closeAll());
    const connection = await pool.get("i");
    await connection.callTool({ name: "echo", arguments: { text: "1" } });
    fixture.forgetSessions();
    const result = await (await pool.get("i")).callTool({ name: "echo", arguments: { text: "2" } });
    expect(result.content).toEqual([{ type: "text", text: "echo: 2" }]);
    expect(initializes(fixture)).toBe(2);
    expect(calls.count).toBe(2);
  });

  it("throws a 404 on a request that carried no session id (wrong URL) instead of retrying it", async () => {
    const fixture = await forgetful({ count: 0 });
    const connection = connectionTo({ transport: "streamable_http", url: fixture.url("/wrong"), headers: {} });
    const error = await connection.callTool({ name: "echo", arguments: { text: "x" } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(404);
    // The server/discover probe's 404 means "not 2026"; the initialize's 404 is thrown, not retried.
    expect(fixture.requests.filter((r) => r.path === "/wrong").map((r) => r.headers["mcp-method"])).toEqual([
      "server/discover",
      undefined,
    ]);
    expect(connection.connected).toBe(false);
  });

  it("does not re-initialize on a 404 from a server without sessions: the request carried no session id", async () => {
    // A stateless SDK server (no mcp-session-id at all) that starts answering 404, e.g. its route was removed.
    let gone = false;
    const fixture = await new HttpFixture(() => ({
      async handle(req, res) {
        if (req.method !== "POST") return void res.writeHead(405).end();
        if (gone) return void res.writeHead(404, { "content-type": "text/plain" }).end("Not Found");
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        await demoServer()().connect(transport);
        await transport.handleRequest(req, res);
      },
      close: async () => {},
    })).start();
    cleanups.push(() => fixture.stop());
    const connection = connectionTo({ transport: "streamable_http", url: fixture.url("/mcp"), headers: {} });
    await connection.callTool({ name: "echo", arguments: { text: "stateless" } });
    expect(sessionIdsOfPosts(fixture)).toEqual([]);
    const postsBefore = fixture.requests.filter((r) => r.method === "POST").length;

    gone = true;
    const error = await connection.callTool({ name: "echo", arguments: { text: "x" } }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(404);
    // Just the one request: no new initialize, no re-send.
    expect(fixture.requests.filter((r) => r.method === "POST").length).toBe(postsBefore + 1);
  });

  it("re-sends only once: a server that forgets every new session too makes the call fail with the 404", async () => {
    const calls = { count: 0 };
    const self: { fixture?: StreamableHttpFixture } = {};
    const base = demoServer({ calls });
    const fixture = await startStreamableHttpServer(() => {
      const server = base();
      // Forget the session as soon as the client finished initializing it: every later request gets 404.
      server.server.oninitialized = () => self.fixture?.forgetSessions();
      return server;
    });
    self.fixture = fixture;
    cleanups.push(() => fixture.stop());
    const connection = connectionTo({ transport: "streamable_http", url: fixture.url("/mcp"), headers: {} });
    const error = await connection.callTool({ name: "echo", arguments: { text: "x" } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(404);
    expect(initializes(fixture)).toBe(2);
    expect(calls.count).toBe(0);
  });
});

describe("UpstreamConnection notifications", () => {
  it("reports the server's list_changed notifications", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = demoServer({ extras: false })();
    await server.connect(serverSide);
    const connection = new UpstreamConnection({ instanceId: "mem", connector: async () => clientSide });
    cleanups.push(() => connection.close());
    const kinds: string[] = [];
    connection.onListChanged((kind) => kinds.push(kind));
    await connection.connect();
    server.registerTool("late", { description: "Added after connect" }, async () => ({ content: [] }));
    await expect.poll(() => kinds).toEqual(["tools"]);
  });

  it("reports them from a pooled connection to the pool's hook, with the instance", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = demoServer({ extras: false })();
    await server.connect(serverSide);
    const heard: string[] = [];
    const pool = new ConnectionPool({
      resolve: async () => ({ connector: async () => clientSide }),
      onListChanged: (instanceId, kind) => void heard.push(`${instanceId}:${kind}`),
    });
    cleanups.push(() => pool.closeAll());
    await pool.get("mem");
    server.registerTool("late", { description: "Added after connect" }, async () => ({ content: [] }));
    await expect.poll(() => heard).toEqual(["mem:tools"]);
  });

  it("hands a watcher the instance's shared connection now and each one after an eviction, opening none", async () => {
    const pool = new ConnectionPool({
      resolve: async () => {
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        await demoServer({ extras: false })().connect(serverSide);
        return { connector: async () => clientSide };
      },
    });
    cleanups.push(() => pool.closeAll());
    const seen: unknown[] = [];
    const unwatch = pool.watch("w", (connection) => void seen.push(connection));
    expect(seen).toEqual([]);
    expect(pool.size).toBe(0);
    const first = await pool.get("w");
    await pool.evict("w");
    const second = await pool.get("w");
    expect(seen).toEqual([first, second]);
    // A watcher that comes later gets the one there is; one that left gets nothing more.
    const late: unknown[] = [];
    pool.watch("w", (connection) => void late.push(connection));
    expect(late).toEqual([second]);
    unwatch();
    await pool.evict("w");
    await pool.get("w");
    expect(seen).toHaveLength(2);
    expect(late).toHaveLength(2);
  });
});

describe("UpstreamConnection over legacy SSE", () => {
  it("initializes, calls a tool and sends the launch headers on the stream and the posts", async () => {
    const fixture = await serve("sse");
    const connection = connectionTo({
      transport: "sse",
      url: fixture.url("/sse"),
      headers: { authorization: "Bearer sse-token" },
    });
    const result = await connection.callTool({ name: "echo", arguments: { text: "legacy" } });
    expect(result.content).toEqual([{ type: "text", text: "echo: legacy" }]);
    expect(connection.getServerVersion()?.name).toBe("demo");
    expect(fixture.headersOf("/sse")[0]?.authorization).toBe("Bearer sse-token");
    expect(fixture.headersOf("/messages").every((h) => h.authorization === "Bearer sse-token")).toBe(true);
  });

  it("opens a new stream after the server restarted", async () => {
    const fixture = await serve("sse");
    const connection = connectionTo({ transport: "sse", url: fixture.url("/sse"), headers: {} });
    await connection.callTool({ name: "echo", arguments: { text: "before" } });
    await fixture.restart();
    const { value } = await withRetry(
      () => connection.callTool({ name: "echo", arguments: { text: "after" } }),
      noSleep,
    );
    expect(value.content).toEqual([{ type: "text", text: "echo: after" }]);
  });
});

describe("ConnectionPool", () => {
  it("keeps one live connection per instance, each member with its own headers", async () => {
    const fixture = await serve();
    const tokens: Record<string, string> = { "alice-inst": "alice-secret", "bob-inst": "bob-secret" };
    const pool = new ConnectionPool({
      resolve: async (instanceId) => ({
        launch: {
          transport: "streamable_http",
          url: fixture.url("/mcp"),
          headers: { authorization: `Bearer ${tokens[instanceId]}` },
        },
        fetch: fixtureFetch,
      }),
    });
    cleanups.push(() => pool.closeAll());
    const alice = await pool.get("alice-inst");
    const bob = await pool.get("bob-inst");
    expect(alice).not.toBe(bob);
    expect(await pool.get("alice-inst")).toBe(alice);
    await Promise.all([
      alice.callTool({ name: "echo", arguments: { text: "a" } }),
      bob.callTool({ name: "echo", arguments: { text: "b" } }),
    ]);
    const sessionsByToken = new Map<string, Set<string>>();
    for (const r of fixture.requests.filter((r) => r.method === "POST" && r.headers["mcp-session-id"])) {
      const auth = String(r.headers.authorization);
      const set = sessionsByToken.get(auth) ?? new Set<string>();
      set.add(String(r.headers["mcp-session-id"]));
      sessionsByToken.set(auth, set);
    }
    const aliceSessions = sessionsByToken.get("Bearer alice-secret");
    const bobSessions = sessionsByToken.get("Bearer bob-secret");
    expect(aliceSessions?.size).toBe(1);
    expect(bobSessions?.size).toBe(1);
    expect([...(aliceSessions ?? [])][0]).not.toBe([...(bobSessions ?? [])][0]);
  });

  it("closes an evicted connection and opens a new one on the next get", async () => {
    const fixture = await serve();
    const pool = new ConnectionPool({
      resolve: async () => ({
        launch: { transport: "streamable_http", url: fixture.url("/mcp"), headers: {} },
        fetch: fixtureFetch,
      }),
    });
    cleanups.push(() => pool.closeAll());
    const first = await pool.get("i");
    await pool.evict("i");
    expect(first.connected).toBe(false);
    const second = await pool.get("i");
    expect(second).not.toBe(first);
    expect(pool.size).toBe(1);
  });
});
