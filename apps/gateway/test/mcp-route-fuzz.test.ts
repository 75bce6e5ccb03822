import { request } from "node:http";
import { connect } from "node:net";
import { chance, fuzzMessage, pick, seeded, validMessage, type Random } from "@switchboard/core/testing/jsonrpc-fuzz";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redis } from "@switchboard/runtime/redis";
import { liveSessionCount } from "../src/mcp/sessions";
import { authenticate } from "../src/auth/authenticate";
import { redisKeys } from "@switchboard/core/contracts";
import { env } from "@switchboard/runtime/env";
import { connectClient } from "./support/mcp";
import { ACCEPT, initializeBody, openRawSession, startRouteTeam, stopRouteTeam } from "./support/route-team";

// Small enough that the corpus's initialize requests run into it.
process.env.MCP_MAX_SESSIONS_PER_TOKEN = "10";

/**
 * An attacker's view of the route: a seeded corpus of malformed (and some valid) requests of every shape, sent
 * to the running route. Every one must get an answer, none a 5xx, and the process must still serve a client
 * afterwards with its memory and sessions bounded. A failing case is reproduced by its index (same seed).
 */

const SEED = 20261123;
const CASES = 1_200;
/** Far above any real answer: only a request that would never be answered reaches it. */
const HANG_BOUND_MS = 30_000;

let ctx: Awaited<ReturnType<typeof startRouteTeam>>;
let token: string;
let initToken: string;
let otherToken: string;
let session: string;
let otherSession: string;

beforeAll(async () => {
  ctx = await startRouteTeam();
  token = await ctx.newToken("fuzz");
  // Sessions the corpus creates belong to their own token, so that evictions never close the shared session.
  initToken = await ctx.newToken("fuzz-init");
  otherToken = await ctx.newToken("fuzz-other");
  session = await openRawSession(ctx.base, token);
  otherSession = await openRawSession(ctx.base, otherToken);
});

afterAll(async () => {
  await stopRouteTeam(ctx?.upstream);
});

interface Case {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** The id of the single request in the body, when it has one a client could match. */
  id?: string | number;
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

function send(c: Case): Promise<Answer> {
  const url = new URL(ctx.base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: c.method,
        path: c.path,
        headers: { ...c.headers, ...(c.body ? { "content-length": String(c.body.length) } : {}) },
      },
      (res) => {
        const contentType = String(res.headers["content-type"] ?? "");
        // A GET stream stays open by design: its headers are the answer.
        if (c.method === "GET" && contentType.includes("text/event-stream")) {
          res.destroy();
          return resolve({ status: res.statusCode ?? 0, contentType, text: "" });
        }
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, contentType, text: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    req.setTimeout(HANG_BOUND_MS, () => req.destroy(new Error(`no answer within ${HANG_BOUND_MS} ms`)));
    req.on("error", reject);
    req.end(c.body);
  });
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

/** A POST as a well-behaved client sends it: in the shared session unless other headers are given. */
const wellFormedPost = (body: Buffer, extra: Record<string, string> = { "mcp-session-id": session }): Case => ({
  method: "POST",
  path: "/api/mcp",
  headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: ACCEPT, ...extra },
  body,
});
const deep = (depth: number, open = "[", close = "]") => open.repeat(depth) + close.repeat(depth);

/** Bodies no serializer would write: broken JSON, bad bytes, bad escapes, nesting, size. */
function rawBody(r: Random): { body: Buffer; id?: number } {
  return pick(r, [
    () => ({ body: Buffer.from("{not json") }),
    () => ({ body: Buffer.from("") }),
    () => ({ body: Buffer.from("null") }),
    () => ({ body: Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"') }),
    () => ({ body: Buffer.from(deep(5_000)) }),
    () => ({ body: Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":${deep(5_000)}}}`) }),
    () => ({
      body: Buffer.from(
        `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"my-demo-echo","arguments":{"text":"x","d":${deep(60)}}}}`,
      ),
      id: 2,
    }),
    () => ({
      body: Buffer.from(
        String.raw`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"my-demo-echo","arguments":{"text":"nul \u0000 here"}}}`,
      ),
    }),
    () => ({
      body: Buffer.from(
        String.raw`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"my-demo-\u0000","arguments":{}}}`,
      ),
    }),
    () => ({
      body: Buffer.from(
        String.raw`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"my-demo-echo","arguments":{"text":"\ud800"}}}`,
      ),
    }),
    () => ({ body: Buffer.from(String.raw`{"jsonrpc":"2.0","id":"\udfff","method":"ping"}`) }),
    () => ({
      body: Buffer.concat([
        Buffer.from(
          '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"my-demo-echo","arguments":{"text":"',
        ),
        Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]),
        Buffer.from('"}}}'),
      ]),
    }),
    () => ({ body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json({ jsonrpc: "2.0", id: 7, method: "ping" })]) }),
    () => ({ body: Buffer.from('{"jsonrpc":"2.0","id":8,"method":"ping","params":{}}\u0000') }),
    () => ({
      body: json({
        jsonrpc: "2.0",
        id: 9,
        method: "tools/call",
        params: { name: "my-demo-echo", arguments: { text: "x".repeat(900_000) } },
      }),
      id: 9,
    }),
    () => ({
      body: Buffer.from(
        JSON.stringify({ jsonrpc: "2.0", id: 10, method: "ping", params: { pad: "y".repeat(1_100_000) } }),
      ),
    }),
    () => ({ body: json(Array.from({ length: 101 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" }))) }),
    () => ({ body: json([[{ jsonrpc: "2.0", id: 1, method: "ping" }]]) }),
    () => ({ body: Buffer.from('{"jsonrpc":"2.0","id":11,"method":"ping","id":12}') }),
    () => ({ body: Buffer.from('{"__proto__":{"jsonrpc":"2.0"},"id":13,"method":"ping"}') }),
  ])();
}

function initializeCase(r: Random): { body: Buffer; id?: number } {
  return pick(r, [
    () => ({ body: json(initializeBody(20)), id: 20 }),
    () => ({
      body: Buffer.from(
        `{"jsonrpc":"2.0","id":21,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)},"clientInfo":{"name":"deep","version":"1"}}}`,
      ),
    }),
    () => ({
      body: json({
        ...initializeBody(22),
        params: {
          protocolVersion: "2025-06-18",
          capabilities: { experimental: { a: { b: { c: 1 } } } },
          clientInfo: { name: "ok", version: "1" },
        },
      }),
      id: 22,
    }),
    () => ({
      body: json({
        ...initializeBody(23),
        params: { protocolVersion: 5, capabilities: {}, clientInfo: { name: "x", version: "1" } },
      }),
      id: 23,
    }),
    () => ({
      body: json({
        ...initializeBody(24),
        params: { protocolVersion: "2025-06-18", capabilities: [], clientInfo: { name: "x", version: "1" } },
      }),
      id: 24,
    }),
    () => ({
      body: json({
        ...initializeBody(25),
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: "me" },
      }),
      id: 25,
    }),
    () => ({ body: json({ ...initializeBody(26), params: "init" }), id: 26 }),
    () => ({ body: json([initializeBody(27)]) }),
    () => ({
      body: Buffer.from(
        String.raw`{"jsonrpc":"2.0","id":28,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"nul\u0000","version":"1"}}}`,
      ),
    }),
  ])();
}

function generate(r: Random, index: number): Case {
  const sessionHeader = (): Record<string, string> => {
    const roll = r();
    if (roll < 0.7) return { "mcp-session-id": session };
    if (roll < 0.8) return {};
    if (roll < 0.88) return { "mcp-session-id": randomUUIDFrom(r) };
    if (roll < 0.94) return { "mcp-session-id": otherSession };
    return { "mcp-session-id": pick(r, ["a b", "x".repeat(300), "é", "", "../../etc", "%00"]) };
  };
  const headers: Record<string, string> = {
    "content-type": chance(r, 0.92)
      ? "application/json"
      : pick(r, [
          "text/plain",
          "application/x-www-form-urlencoded",
          "application/json; charset=latin1",
          "application/vnd.api+json",
          "",
        ]),
  };
  const accept = pick(r, [
    ACCEPT,
    ACCEPT,
    ACCEPT,
    "application/json",
    "text/event-stream",
    "*/*",
    "text/html",
    undefined,
  ]);
  if (accept !== undefined) headers.accept = accept;
  const auth = r();
  if (auth < 0.92) headers.authorization = `Bearer ${token}`;
  else if (auth < 0.96)
    headers.authorization = pick(r, [
      "Bearer ",
      "Bearer sbp_" + "x".repeat(40),
      "Basic YTpi",
      `Bearer ${token}x`,
      `bearer ${token}`,
    ]);
  const version = r();
  if (version < 0.75) headers["mcp-protocol-version"] = "2025-06-18";
  else if (version < 0.9)
    headers["mcp-protocol-version"] = pick(r, ["1999-01-01", "", "2025-06-18, 2025-03-26", "latest", "x".repeat(200)]);
  if (chance(r, 0.02)) headers.origin = "http://evil.example";

  const path = chance(r, 0.88)
    ? pick(r, ["/api/mcp", "/api/mcp", "/api/mcp/", "/api/mcp?x=1"])
    : pick(r, [
        "/api/mcp/servers/my-demo",
        "/api/mcp/servers/%00",
        "/api/mcp/servers/%ZZ",
        "/api/mcp/servers/%ED%A0%80",
        "/api/mcp/servers/%FF",
        "/api/mcp/servers/nope",
        "/api/mcp/servers/%0a",
        "/api/mcp/servers/a%2Fb",
        "/api/mcp/?q=%00",
      ]);

  const method = r();
  if (method < 0.05) return { method: "GET", path, headers: { ...headers, ...sessionHeader() } };
  if (method < 0.08) {
    // Never the shared session: deleting it would end the corpus's most interesting target.
    return {
      method: "DELETE",
      path,
      headers: { ...headers, "mcp-session-id": pick(r, [randomUUIDFrom(r), "a b", otherSession.slice(0, 10)]) },
    };
  }
  if (method < 0.1)
    return {
      method: pick(r, ["PUT", "PATCH", "OPTIONS", "HEAD"]),
      path,
      headers: { ...headers, ...sessionHeader() },
      body: json(validMessage(r)),
    };

  const shape = r();
  if (shape < 0.06) {
    const { body, id } = initializeCase(r);
    return { method: "POST", path, headers: { ...headers, authorization: `Bearer ${initToken}` }, body, id };
  }
  if (shape < 0.3) {
    const { body, id } = rawBody(r);
    return { method: "POST", path, headers: { ...headers, ...sessionHeader() }, body, id };
  }
  if (shape < 0.42) {
    const batch = Array.from({ length: 1 + Math.floor(r() * 5) }, () =>
      chance(r, 0.6) ? validMessage(r, `${index}-${Math.floor(r() * 1e6)}`) : fuzzMessage(r),
    );
    return { method: "POST", path, headers: { ...headers, ...sessionHeader() }, body: json(batch) };
  }
  // A share of well-formed messages, so that plenty of the corpus reaches the SDK and the upstream.
  const message = chance(r, 0.3) ? validMessage(r) : fuzzMessage(r);
  const id = typeof message === "object" && message !== null ? (message as { id?: unknown }).id : undefined;
  return {
    method: "POST",
    path,
    headers: { ...headers, ...sessionHeader() },
    body: Buffer.from(JSON.stringify(message) ?? "null"),
    id: typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)) ? id : undefined,
  };
}

/** A UUID from the seeded stream, so the corpus is the same every run. */
function randomUUIDFrom(r: Random): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(r() * 16).toString(16)).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/** Every JSON-RPC response object in an answer (plain JSON or SSE events). */
function responsesIn(answer: Answer): { id?: unknown; result?: unknown; error?: { code: number; message: string } }[] {
  const texts = answer.contentType.includes("text/event-stream")
    ? answer.text
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6))
    : answer.contentType.includes("application/json") && answer.text
      ? [answer.text]
      : [];
  return texts.flatMap((t) => {
    const value = JSON.parse(t) as unknown;
    return (Array.isArray(value) ? value : [value]).filter(
      (m) => typeof m === "object" && m !== null && !("method" in m),
    );
  });
}

describe("the MCP route under a fuzzed corpus", () => {
  it(
    `answers each of ${CASES} generated requests, never with a 5xx, and keeps serving with bounded memory`,
    { timeout: 600_000 },
    async () => {
      const r = seeded(SEED);
      const cases = Array.from({ length: CASES }, (_, i) => generate(r, i));
      const heapBefore = process.memoryUsage().heapUsed;
      const failures: string[] = [];
      const statuses = new Map<number, number>();
      let next = 0;
      const worker = async () => {
        while (next < cases.length) {
          const index = next++;
          const c = cases[index]!;
          const label = () =>
            `case ${index}: ${c.method} ${c.path} ${JSON.stringify(c.headers)} ${c.body?.toString("utf8").slice(0, 200) ?? ""}`;
          let answer: Answer;
          try {
            answer = await send(c);
          } catch (err) {
            failures.push(`${label()} -> ${String(err)}`);
            continue;
          }
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          if (answer.status >= 500) failures.push(`${label()} -> ${answer.status} ${answer.text.slice(0, 300)}`);
          let responses: ReturnType<typeof responsesIn>;
          try {
            responses = responsesIn(answer);
          } catch {
            failures.push(`${label()} -> unparseable answer ${answer.status} ${answer.text.slice(0, 200)}`);
            continue;
          }
          // A database's or a stack's words never reach the client.
          if (/prisma|postgres|invalid byte sequence|stack size|at \S+ \(/i.test(answer.text))
            failures.push(`${label()} -> leaked ${answer.text.slice(0, 300)}`);
          // The answer to a single request with a usable id carries that id (on success and on refusal alike).
          if (
            c.id !== undefined &&
            c.method === "POST" &&
            (answer.status === 200 || responses.some((m) => m.error?.code === -32602))
          ) {
            const ids = responses.map((m) => m.id);
            if (!ids.includes(c.id))
              failures.push(`${label()} -> answer ids ${JSON.stringify(ids)}, expected ${JSON.stringify(c.id)}`);
          }
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      expect(failures, failures.slice(0, 20).join("\n")).toEqual([]);
      // The corpus reached past the front door: plenty of requests were served, not all refused.
      expect(statuses.get(200) ?? 0).toBeGreaterThan(120);
      expect(statuses.get(400) ?? 0).toBeGreaterThan(200);

      // Still serving: a real client lists and calls through the shared upstream.
      const { client } = await connectClient(token);
      const called = await client.callTool({ name: "my-demo-echo", arguments: { text: "still here" } });
      expect(JSON.stringify(called.content)).toContain("echo: still here");
      await client.close();
      // Bounded: the corpus's sessions stayed within the token limit, in Redis and in memory.
      const init = (await authenticate({ db: ctx.db, bearer: initToken }))!;
      expect(
        await redis().zcard(redisKeys.mcpTokenSessions(env().REDIS_PREFIX, init, init.tokenId)),
      ).toBeLessThanOrEqual(10);
      expect(liveSessionCount()).toBeLessThanOrEqual(10 + 3);
      // Generous: 1,200 requests of up to 1 MiB each must not leave the heap hundreds of MB bigger.
      expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(256 * 1024 * 1024);
    },
  );

  it("answers NUL and other control bytes in the request line and headers with 400 and keeps serving", async () => {
    const url = new URL(ctx.base);
    const raw = (text: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(url.port), url.hostname, () => socket.end(text));
        let got = "";
        socket.on("data", (d) => (got += d.toString("latin1")));
        socket.on("end", () => resolve(got));
        socket.on("close", () => resolve(got));
        socket.on("error", reject);
        socket.setTimeout(HANG_BOUND_MS, () => socket.destroy(new Error("no answer")));
      });
    const host = `Host: ${url.host}\r\n`;
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const post = (line: string, headers: string) =>
      `${line}\r\n${host}${headers}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    for (const text of [
      post("POST /api/mcp\0 HTTP/1.1", `Authorization: Bearer ${token}\r\n`),
      post("POST /api/mcp HTTP/1.1", `Authorization: Bearer ${token}\0\r\n`),
      post("POST /api/mcp HTTP/1.1", `Authorization: Bearer ${token}\r\nMcp-Session-Id: ${session}\0x\r\n`),
      post("POST /api/mcp HTTP/1.1", `Authorization: Bearer ${token}\r\nMcp-Session-Id: \x01\x02\r\n`),
      post("POST /api/mcp HTTP/1.1", `Authorization: Bearer ${token}\r\nMcp-Session-Id: \xe9\xff\r\n`),
    ]) {
      const answer = await raw(text);
      expect(answer, JSON.stringify(text)).toMatch(/^HTTP\/1\.1 4\d\d /);
    }
    const ok = await send(wellFormedPost(json({ jsonrpc: "2.0", id: 1, method: "ping" })));
    expect(ok.status).toBe(200);
  });

  it("answers deep nesting anywhere in params or _meta with 400 in one sentence, on both revisions", async () => {
    const nest = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    const meta2026 = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`;
    const bodies: [string, Record<string, string>][] = [
      // In a 2025-11-25 session: params, a tool's arguments, _meta.
      [
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"my-demo-echo","arguments":${nest(5_000)}}}`,
        { "mcp-session-id": session },
      ],
      [
        `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":${nest(5_000)}}}`,
        { "mcp-session-id": session },
      ],
      [
        `[{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":{"x":${deep(5_000)}}}}]`,
        { "mcp-session-id": session },
      ],
      // A 2026-07-28 request: in its _meta, and in a client capability it declares there.
      [
        `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{${meta2026},"x":${nest(5_000)}}}}`,
        { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
      ],
      [
        `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":${nest(5_000)}}}}`,
        { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
      ],
    ];
    for (const [body, extra] of bodies) {
      const answer = await send(wellFormedPost(Buffer.from(body), extra));
      expect({ status: answer.status, body: JSON.parse(answer.text) as unknown }, body.slice(0, 80)).toEqual({
        status: 400,
        body: {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32600, message: "Invalid Request: The JSON nests deeper than 64 levels." },
        },
      });
    }
    // Nesting within the bound is served.
    const fine = await send(
      wellFormedPost(Buffer.from(`{"jsonrpc":"2.0","id":6,"method":"ping","params":{"_meta":{"x":${nest(40)}}}}`)),
    );
    expect(fine.status).toBe(200);
  });

  it("never starts a session for a refused initialize", async () => {
    const other = (await authenticate({ db: ctx.db, bearer: otherToken }))!;
    const tokenSet = redisKeys.mcpTokenSessions(env().REDIS_PREFIX, other, other.tokenId);
    const before = await redis().zcard(tokenSet);
    const deepCapabilities = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)},"clientInfo":{"name":"deep","version":"1"}}}`;
    for (const body of [
      deepCapabilities,
      JSON.stringify({
        ...initializeBody(2),
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: 5 },
      }),
    ]) {
      const answer = await send({
        method: "POST",
        path: "/api/mcp",
        headers: { authorization: `Bearer ${otherToken}`, "content-type": "application/json", accept: ACCEPT },
        body: Buffer.from(body),
      });
      expect(answer.status).toBe(400);
    }
    expect(await redis().zcard(tokenSet)).toBe(before);
  });
});
