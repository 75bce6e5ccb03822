import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { InvalidGrantError, ServerError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";

import { humanizeError } from "../src/errors";
import { classifyError, CONNECTION_LOST_MESSAGE, isJsonRpcToolError } from "../src/policies";
import { WorkerNotAnsweringError, WorkerUnavailableError } from "../src/stdio";
import { closedPort, httpServer } from "./helpers/net";

async function caught(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection");
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function sdkConnectError(status: number): Promise<unknown> {
  const server = await httpServer((_req, res) => {
    res.writeHead(status, { "content-type": "text/plain" }).end(`nope ${status}`);
  });
  cleanups.push(server.close);
  const client = new Client({ name: "test", version: "0.0.0" });
  return caught(() => client.connect(new StreamableHTTPClientTransport(new URL(server.url))));
}

describe("classifyError on real failures", () => {
  it("marks a refused TCP connection (real fetch to a closed port) offline and retryable", async () => {
    const port = await closedPort();
    const err = await caught(() => fetch(`http://127.0.0.1:${port}/`));
    expect(err).toBeInstanceOf(TypeError); // undici hides the code on .cause
    expect(classifyError(err)).toMatchObject({ status: "offline", retryable: true, kind: "connection_refused" });
    expect(classifyError(err).message).toContain("ECONNREFUSED");
  });

  it("marks a DNS failure on a .invalid host offline and retryable", async () => {
    const err = await caught(() => fetch("http://switchboard-test.invalid/"));
    expect(classifyError(err)).toMatchObject({ status: "offline", retryable: true, kind: "dns" });
  });

  it.each([
    [401, "requires_reauth", false, "http_unauthorized"],
    [403, "requires_reauth", false, "http_forbidden"],
    [500, "error", false, "http_error"],
    [503, "offline", true, "http_unavailable"],
  ] as const)("maps an SDK client that gets HTTP %i to %s", async (status, expected, retryable, kind) => {
    const err = await sdkConnectError(status);
    expect(err).toBeInstanceOf(StreamableHTTPError);
    expect(classifyError(err)).toMatchObject({ status: expected, retryable, kind });
  });

  it("marks an SDK request that times out against a server that never answers offline and retryable", async () => {
    const server = await httpServer(() => {
      /* never answers */
    });
    cleanups.push(server.close);
    const client = new Client({ name: "test", version: "0.0.0" });
    const err = await caught(() =>
      client.connect(new StreamableHTTPClientTransport(new URL(server.url)), { timeout: 200 }),
    );
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(ErrorCode.RequestTimeout);
    expect(classifyError(err)).toMatchObject({ status: "offline", retryable: true, kind: "timeout" });
    expect(isJsonRpcToolError(err)).toBe(false);
  });

  it("treats a JSON-RPC error answered by a real server as a tool error, not a connection failure", async () => {
    const server = new McpServer({ name: "tools-only", version: "0.0.0" });
    server.registerTool("echo", { description: "echo" }, () => ({ content: [] }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "test", version: "0.0.0" });
    await client.connect(clientSide);
    cleanups.push(() => client.close());
    const err = await caught(() => client.listPrompts()); // the server has no prompts capability
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(ErrorCode.MethodNotFound);
    expect(isJsonRpcToolError(err)).toBe(true);
    expect(classifyError(err)).toMatchObject({ status: "error", retryable: false });
  });
});

function systemError(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}

describe("classifyError on constructed failures", () => {
  it.each<[string, unknown, string, boolean, string]>([
    ["UnauthorizedError from the OAuth flow", new UnauthorizedError(), "requires_reauth", false, "oauth"],
    [
      "an OAuth invalid_grant on refresh",
      new InvalidGrantError("refresh token revoked"),
      "requires_reauth",
      false,
      "oauth",
    ],
    ["an OAuth server_error (transient)", new ServerError("try later"), "offline", true, "network"],
    [
      "SseError 401",
      new SseError(401, "Unauthorized", undefined as never),
      "requires_reauth",
      false,
      "http_unauthorized",
    ],
    ["SseError 403", new SseError(403, "Forbidden", undefined as never), "requires_reauth", false, "http_forbidden"],
    [
      "SseError without a code caused by ECONNREFUSED",
      Object.assign(new SseError(undefined, "stream failed", undefined as never), {
        cause: systemError("ECONNREFUSED"),
      }),
      "offline",
      true,
      "connection_refused",
    ],
    [
      "SseError without a code or cause",
      new SseError(undefined, "stream failed", undefined as never),
      "error",
      false,
      "unknown",
    ],
    ["StreamableHTTPError 404", new StreamableHTTPError(404, "Not Found"), "error", false, "http_error"],
    ["no worker running stdio servers", new WorkerUnavailableError(), "offline", false, "worker_unavailable"],
    [
      "a worker's bridge refusing",
      new WorkerNotAnsweringError(systemError("ECONNREFUSED")),
      "offline",
      true,
      "connection_refused",
    ],
    [
      "a worker's bridge reset",
      new WorkerNotAnsweringError(systemError("ECONNRESET")),
      "offline",
      true,
      "connection_reset",
    ],
    ["StreamableHTTPError 502", new StreamableHTTPError(502, "Bad Gateway"), "offline", true, "http_unavailable"],
    [
      "McpError ConnectionClosed",
      new McpError(ErrorCode.ConnectionClosed, "Connection closed"),
      "offline",
      true,
      "connection_closed",
    ],
    ["McpError InvalidParams", new McpError(ErrorCode.InvalidParams, "bad args"), "error", false, "unknown"],
    ["ECONNRESET", systemError("ECONNRESET"), "offline", true, "connection_reset"],
    ["ETIMEDOUT", systemError("ETIMEDOUT"), "offline", true, "timeout"],
    ["EAI_AGAIN", systemError("EAI_AGAIN"), "offline", true, "dns"],
    ["EHOSTUNREACH", systemError("EHOSTUNREACH"), "offline", true, "network"],
    [
      "undici connect timeout",
      systemError("UND_ERR_CONNECT_TIMEOUT", "Connect Timeout Error"),
      "offline",
      true,
      "timeout",
    ],
    [
      "fetch failed wrapping ECONNREFUSED two levels deep",
      new TypeError("fetch failed", { cause: new Error("wrapped", { cause: systemError("ECONNREFUSED") }) }),
      "offline",
      true,
      "connection_refused",
    ],
    [
      "AggregateError of refused connections (happy eyeballs)",
      new TypeError("fetch failed", { cause: new AggregateError([systemError("ECONNREFUSED")], "") }),
      "offline",
      true,
      "connection_refused",
    ],
    ["AbortError", new DOMException("The operation was aborted", "AbortError"), "offline", true, "timeout"],
    ["TimeoutError", new DOMException("The operation timed out", "TimeoutError"), "offline", true, "timeout"],
    ["a plain error", new Error("boom"), "error", false, "unknown"],
    ["a thrown string mentioning 401", "Request failed with status 401", "requires_reauth", false, "http_unauthorized"],
    ["a message-only forbidden", new Error("Forbidden by policy"), "requires_reauth", false, "http_forbidden"],
    ["a message-only fetch failed", new Error("fetch failed"), "offline", true, "network"],
    [
      "a message-only ECONNREFUSED",
      new Error("connect ECONNREFUSED 10.0.0.1:80"),
      "offline",
      true,
      "connection_refused",
    ],
    ["undefined", undefined, "error", false, "unknown"],
    ["null", null, "error", false, "unknown"],
    ["an object", { weird: true }, "error", false, "unknown"],
  ])("classifies %s", (_name, err, status, retryable, kind) => {
    const c = classifyError(err);
    expect(c).toMatchObject({ status, retryable, kind });
    expect(typeof c.message).toBe("string");
  });

  it("names the HTTP status when the SDK's text leaves it out, so the status message can say what happened", () => {
    const c = classifyError(new StreamableHTTPError(503, "Streamable HTTP error: Error POSTing to endpoint: "));
    expect(c).toMatchObject({ status: "offline", kind: "http_unavailable" });
    expect(humanizeError(c.message).summary).toBe("The server is unavailable right now (HTTP 503).");
    expect(classifyError(new StreamableHTTPError(404, "HTTP 404 Not Found")).message).not.toContain("(HTTP 404)");
  });

  it("prefers structure over message text (a 500 whose body says 'unauthorized' stays an error)", () => {
    const err = new StreamableHTTPError(500, "upstream said: unauthorized access to database");
    expect(classifyError(err)).toMatchObject({ status: "error", kind: "http_error" });
  });

  it("survives a cause cycle", () => {
    const a = new Error("a");
    const b = new Error("b", { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(classifyError(a).status).toBe("error");
  });

  it("says a connection that closed before the answer in one sentence, also when a worker's bridge relayed it", async () => {
    // A real one: the server side goes away while the client waits for its answer.
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = new McpServer({ name: "closing", version: "0.0.0" });
    server.registerTool("hang", { inputSchema: {} }, () => new Promise<never>(() => {}));
    await server.connect(serverSide);
    const client = new Client({ name: "test", version: "0.0.0" });
    await client.connect(clientSide);
    const pending = caught(() => client.callTool({ name: "hang", arguments: {} }));
    await serverSide.close();
    const closed = await pending;
    expect((closed as McpError).code).toBe(ErrorCode.ConnectionClosed);
    const relayed = new McpError(ErrorCode.ConnectionClosed, (closed as McpError).message);
    expect(relayed.message).toBe("MCP error -32000: MCP error -32000: Connection closed");
    for (const error of [closed, relayed])
      expect(classifyError(error)).toEqual({
        status: "offline",
        retryable: true,
        kind: "connection_closed",
        message: CONNECTION_LOST_MESSAGE,
      });
  });

  it("does not count connection-level McpErrors as tool errors", () => {
    expect(isJsonRpcToolError(new McpError(ErrorCode.ConnectionClosed, "x"))).toBe(false);
    expect(isJsonRpcToolError(new McpError(ErrorCode.RequestTimeout, "x"))).toBe(false);
    expect(isJsonRpcToolError(new McpError(ErrorCode.InvalidParams, "x"))).toBe(true);
    expect(isJsonRpcToolError(new Error("MCP error -32602: x"))).toBe(false);
  });
});
