import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { CreateMessageResultSchema, ElicitResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { demoServer } from "@switchboard/core/testing/demo-server";
import type { StreamableHttpFixture } from "@switchboard/core/testing/streamable-http-server";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { listCallLogs } from "@switchboard/db/queries/call-log";
import { createLiveEvent } from "@switchboard/core/events";
import { redisChannels } from "@switchboard/core/contracts";
import { env } from "@switchboard/runtime/env";
import { redis } from "@switchboard/runtime/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedCount } from "../src/mcp/shared-2026";
import { connectClient, routeBase, teardownRoute } from "./support/mcp";
import { startOtherRoute } from "./support/other-route";
import { startRouteTeam } from "./support/route-team";

/**
 * MCP 2026-07-28 beside 2025-11-25 on the same route: stateless requests chosen by their `_meta` and headers,
 * the errors the revision defines, and real clients of both SDKs at both revisions against one member.
 */

const V = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": V,
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

let upstream: StreamableHttpFixture;
let ctx: {
  token: string;
  teamId: string;
  installationId: string;
  instanceId: string;
  userId: string;
};
/** What the upstream's `meta` tool saw in its request's `_meta`, call by call. */
const seenMeta: unknown[] = [];
let waiting = 0;
let cancelled = 0;

beforeAll(async () => {
  const demo = demoServer();
  const team = await startRouteTeam(() => {
    const server = demo();
    server.registerTool("meta", { description: "Reports the request's _meta" }, async (extra) => {
      seenMeta.push(extra._meta ?? null);
      return { content: [{ type: "text", text: "seen" }] };
    });
    server.registerPrompt("traced", { description: "Reports the request's _meta" }, (extra) => {
      seenMeta.push(extra._meta ?? null);
      return { messages: [{ role: "user", content: { type: "text", text: "seen" } }] };
    });
    server.registerResource("traced", "demo://traced", {}, async (uri, extra) => {
      seenMeta.push(extra._meta ?? null);
      return { contents: [{ uri: uri.href, text: "seen" }] };
    });
    // A 2025 tool that runs until its call is cancelled.
    server.registerTool("wait", { description: "Runs until cancelled" }, async (extra) => {
      waiting++;
      await new Promise<void>((resolve) => extra.signal.addEventListener("abort", () => resolve()));
      waiting--;
      cancelled++;
      return { content: [{ type: "text", text: "cancelled" }] };
    });
    // A 2025 tool that asks its client for a name (elicitation), then for a sample, in one call.
    server.registerTool("ask", { description: "Asks the client twice" }, async (extra) => {
      const named = await extra.sendRequest(
        {
          method: "elicitation/create",
          params: {
            message: "Your name?",
            requestedSchema: { type: "object", properties: { name: { type: "string" } } },
          },
        },
        ElicitResultSchema,
      );
      const sampled = await extra.sendRequest(
        {
          method: "sampling/createMessage",
          params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 5 },
        },
        CreateMessageResultSchema,
      );
      const text = sampled.content.type === "text" ? sampled.content.text : "?";
      return { content: [{ type: "text", text: `hello ${String(named.content?.name)}, ${text}` }] };
    });
    return server;
  });
  upstream = team.upstream;
  ctx = {
    token: await team.newToken("rev2026"),
    teamId: team.team.id,
    installationId: team.installation.id,
    instanceId: team.instance.id,
    userId: team.alice.id,
  };
}, 60_000);

afterAll(async () => {
  await teardownRoute();
  await upstream?.stop();
  await disconnectDb();
});

interface Sent {
  method: string;
  params?: Record<string, unknown>;
  id?: string | number;
  headers?: Record<string, string | undefined>;
  path?: string;
  /** Another gateway process's address (the route under test by default). */
  base?: string;
  signal?: AbortSignal;
}

/** A change of the member's instance, published by the worker through Redis (as to every gateway process). */
async function publishMemberEvent(of: typeof ctx): Promise<void> {
  const event = createLiveEvent(
    "status_changed",
    { teamId: of.teamId, installationId: of.installationId, instanceId: of.instanceId, userId: of.userId },
    { from: "online", to: "online" } as never,
    new Date(),
  );
  await redis().publish(redisChannels.member(env().REDIS_PREFIX, of.userId), JSON.stringify(event));
}

/** A retry of a `tools/call` held for input, with the client's answers (if any), to this route or another. */
function retry(
  params: Record<string, unknown>,
  requestState: string,
  id: string,
  base?: string,
  answers?: Record<string, unknown>,
) {
  const inputs = answers ? { inputResponses: answers } : {};
  return post({ method: "tools/call", params: { ...params, ...inputs, requestState }, id, base });
}

/** One 2026-07-28 POST with the headers a conforming client sends (overridable; undefined drops one). */
async function post({ method, params = { _meta: META }, id = 1, headers = {}, path = "/api/mcp", base, signal }: Sent) {
  const name = (params.name ?? params.uri) as string | undefined;
  const all: Record<string, string | undefined> = {
    authorization: `Bearer ${ctx.token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": V,
    "mcp-method": method,
    ...(name !== undefined ? { "mcp-name": name } : {}),
    ...headers,
  };
  const res = await fetch(new URL(path, base ?? routeBase()), {
    method: "POST",
    signal,
    headers: Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined)) as Record<string, string>,
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
  });
  const text = await res.text();
  const body = (res.headers.get("content-type") ?? "").includes("text/event-stream")
    ? text
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>)
    : (JSON.parse(text) as Record<string, unknown>);
  return { status: res.status, headers: res.headers, body };
}

describe("MCP 2026-07-28 on the route", () => {
  it("answers server/discover with the member's capabilities, our identity and both revisions, without a session", async () => {
    const { status, headers, body } = await post({ method: "server/discover", id: "d1" });
    expect(status).toBe(200);
    expect(headers.get("mcp-session-id")).toBeNull();
    expect(body).toMatchObject({
      id: "d1",
      result: {
        resultType: "complete",
        supportedVersions: expect.arrayContaining([V, "2025-11-25"]),
        capabilities: { tools: {}, resources: {}, prompts: {} },
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "switchboard" } },
        cacheScope: "private",
        ttlMs: 15_000,
      },
    });
  });

  it("lists namespaced tools in the same order every time, with caching hints", async () => {
    const first = await post({ method: "tools/list" });
    const second = await post({ method: "tools/list", id: 2 });
    const result = (first.body as { result: { tools: { name: string }[]; ttlMs: number; cacheScope: string } }).result;
    expect(result.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(["my-demo-echo", "my-demo-progress", "my-demo-meta"]),
    );
    expect(result).toMatchObject({ resultType: "complete", cacheScope: "private", ttlMs: 15_000 });
    expect((second.body as typeof first.body & { result: unknown }).result).toEqual(result);
    // A read goes to the upstream every time: never fresh for long. Mcp-Name carries the namespaced URI.
    const read = await post({ method: "resources/read", params: { uri: "ui://my-demo/demo/app.html", _meta: META } });
    expect(read.body).toMatchObject({
      result: { resultType: "complete", ttlMs: 0, cacheScope: "private", contents: [{ mimeType: "text/html" }] },
    });
    const unknown = await post({ method: "resources/read", params: { uri: "ui://my-demo/nope", _meta: META }, id: 9 });
    expect(unknown.body).toMatchObject({ id: 9, error: { code: -32602 } });
  });

  it("sends the upstream one request per call: a finished call is never cancelled when its proxy closes", async () => {
    const call = (i: number) =>
      post({ method: "tools/call", params: { name: "my-demo-echo", arguments: { text: `n${i}` }, _meta: META } });
    expect((await call(0)).status).toBe(200);
    const seen = upstream.requests.length;
    for (let i = 1; i <= 20; i++) expect((await call(i)).body).toMatchObject({ result: { resultType: "complete" } });
    // Closing each request's proxy as soon as the answer was written used to abort the SDK handler that had just
    // answered, and the upstream then got a notifications/cancelled for every finished call: 40 POSTs here. Each
    // call is sent after the previous one's answer, so an earlier call's cancellation would arrive before it.
    expect(upstream.requests.slice(seen).map((r) => r.method)).toEqual(Array(20).fill("POST"));
  });

  it("calls a tool of a 2025 upstream, writes the request log and passes trace context on, not our _meta keys", async () => {
    const call = await post({
      method: "tools/call",
      params: { name: "my-demo-echo", arguments: { text: "hi" }, _meta: META },
    });
    expect(call.status).toBe(200);
    expect(call.body).toMatchObject({
      result: { resultType: "complete", content: [{ type: "text", text: "echo: hi" }] },
    });
    expect((call.body as { result: Record<string, unknown> }).result.ttlMs).toBeUndefined();

    const traced = {
      ...META,
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      tracestate: "vendor=1",
      baggage: "member=alice",
    };
    const trace = { traceparent: traced.traceparent, tracestate: "vendor=1", baggage: "member=alice" };
    await post({ method: "tools/call", params: { name: "my-demo-meta", arguments: {}, _meta: traced } });
    expect(seenMeta.at(-1)).toEqual(trace);
    await post({ method: "prompts/get", params: { name: "my-demo-traced", _meta: traced } });
    expect(seenMeta.at(-1)).toEqual(trace);
    await post({ method: "resources/read", params: { uri: "my-demo|demo://traced", _meta: traced } });
    expect(seenMeta.at(-1)).toEqual(trace);
    // The installation's request log as its owner reads it in the console (every member's calls).
    await expect
      .poll(
        async () =>
          (await listCallLogs(getDb(), { teamId: ctx.teamId, installationId: ctx.installationId, limit: 50 })).items
            .length,
        { timeout: 10_000 },
      )
      .toBeGreaterThanOrEqual(2);
  });

  it("sends a call's log messages only at or above the level the request asked for", async () => {
    const quiet = await post({
      method: "tools/call",
      params: { name: "my-demo-progress", arguments: { steps: 2 }, _meta: { ...META, progressToken: "p" } },
    });
    const quietFrames = Array.isArray(quiet.body) ? quiet.body : [quiet.body];
    expect(quietFrames.some((f) => f.method === "notifications/message")).toBe(false);
    expect(quietFrames.filter((f) => f.method === "notifications/progress")).toHaveLength(2);
    const loud = await post({
      method: "tools/call",
      params: {
        name: "my-demo-progress",
        arguments: { steps: 2 },
        _meta: { ...META, "io.modelcontextprotocol/logLevel": "info" },
      },
    });
    expect((loud.body as Record<string, unknown>[]).filter((f) => f.method === "notifications/message")).toHaveLength(
      2,
    );
    expect((loud.body as Record<string, unknown>[]).at(-1)).toMatchObject({ result: { resultType: "complete" } });
  });

  it("refuses what the revision refuses, with the request's id on every error", async () => {
    const cases: Array<[Sent, number, number]> = [
      [{ method: "server/discover", params: {}, id: 101 }, 400, -32602],
      [
        {
          method: "server/discover",
          params: { _meta: { "io.modelcontextprotocol/protocolVersion": V } },
          id: 102,
        },
        400,
        -32602,
      ],
      [{ method: "tools/list", id: 103, headers: { "mcp-protocol-version": undefined } }, 400, -32020],
      [
        {
          method: "server/discover",
          params: { _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "v999" } },
          id: 104,
        },
        400,
        -32020,
      ],
      [{ method: "tools/list", id: 105, headers: { "mcp-method": "prompts/list" } }, 400, -32020],
      [{ method: "tools/list", id: 106, headers: { "mcp-method": undefined } }, 400, -32020],
      [
        {
          method: "tools/call",
          params: { name: "my-demo-echo", arguments: { text: "x" }, _meta: META },
          id: 107,
          headers: { "mcp-name": "echo" },
        },
        400,
        -32020,
      ],
      [
        {
          method: "tools/call",
          params: { name: "my-demo-echo", arguments: { text: "x" }, _meta: META },
          id: 108,
          headers: { "mcp-name": undefined },
        },
        400,
        -32020,
      ],
      [{ method: "ping", id: 109 }, 404, -32601],
      [{ method: "initialize", id: 110 }, 404, -32601],
      [{ method: "logging/setLevel", params: { level: "info", _meta: META }, id: 111 }, 404, -32601],
      [{ method: "resources/subscribe", params: { uri: "x", _meta: META }, id: 112 }, 404, -32601],
      [{ method: "unknown/method", id: 113 }, 404, -32601],
    ];
    for (const [sent, status, code] of cases) {
      const { status: got, body } = await post(sent);
      expect({
        method: sent.method,
        id: sent.id,
        got,
        code: (body as { error?: { code: number } }).error?.code,
      }).toEqual({
        method: sent.method,
        id: sent.id,
        got: status,
        code,
      });
      expect((body as { id: unknown }).id).toBe(sent.id);
    }
    const unsupported = await post({
      method: "server/discover",
      params: { _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "v999" } },
      headers: { "mcp-protocol-version": "v999" },
      id: "u",
    });
    expect(unsupported).toMatchObject({
      status: 400,
      body: { id: "u", error: { code: -32022, data: { requested: "v999", supported: expect.arrayContaining([V]) } } },
    });
  });

  it("accepts an Mcp-Name in the Base64 sentinel form", async () => {
    const name = "my-demo-echo";
    const call = await post({
      method: "tools/call",
      params: { name, arguments: { text: "b64" }, _meta: META },
      headers: { "mcp-name": `=?base64?${Buffer.from(name).toString("base64")}?=` },
    });
    expect(call.body).toMatchObject({ result: { content: [{ text: "echo: b64" }] } });
  });

  it("serves one installation's path statelessly too, and 404s a server the member does not have", async () => {
    const listed = await post({ method: "tools/list", path: "/api/mcp/servers/my-demo" });
    expect((listed.body as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name)).toContain(
      "echo",
    );
    const missing = await post({ method: "tools/list", path: "/api/mcp/servers/nope", id: "m" });
    expect(missing).toMatchObject({ status: 404, body: { id: "m" } });
  });

  it("serves SDK v2 clients at 2026-07-28 and 2025-11-25, and SDK 1.x clients, on the same URL", async () => {
    const url = new URL("/api/mcp", routeBase());
    const headers = { authorization: `Bearer ${ctx.token}` };
    const rev2026 = new ClientV2(
      { name: "v2-rev2026", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: V } } },
    );
    await rev2026.connect(new TransportV2(url, { requestInit: { headers } }));
    expect(rev2026.getNegotiatedProtocolVersion()).toBe(V);
    expect((await rev2026.listTools()).tools.map((t) => t.name)).toContain("my-demo-echo");
    expect(await rev2026.callTool({ name: "my-demo-echo", arguments: { text: "v2 rev2026" } })).toMatchObject({
      content: [{ type: "text", text: "echo: v2 rev2026" }],
    });
    await rev2026.close();

    const legacy = new ClientV2({ name: "v2-legacy", version: "1.0.0" });
    const transport2025 = new TransportV2(url, { requestInit: { headers } });
    await legacy.connect(transport2025);
    expect(legacy.getNegotiatedProtocolVersion()).toBe("2025-11-25");
    expect(transport2025.sessionId).toBeTruthy();
    expect(await legacy.callTool({ name: "my-demo-echo", arguments: { text: "v2 legacy" } })).toMatchObject({
      content: [{ type: "text", text: "echo: v2 legacy" }],
    });
    await legacy.close();

    const { client: v1 } = await connectClient(ctx.token);
    expect((await v1.listTools()).tools.map((t) => t.name)).toContain("my-demo-echo");
    expect(await v1.callTool({ name: "my-demo-echo", arguments: { text: "v1" } })).toMatchObject({
      content: [{ type: "text", text: "echo: v1" }],
    });
    await v1.close();
  });

  it("bridges what a 2025 upstream asks during a call into input_required rounds that complete the same call", async () => {
    const capable = { ...META, "io.modelcontextprotocol/clientCapabilities": { elicitation: {}, sampling: {} } };
    const params = { name: "my-demo-ask", arguments: {}, _meta: capable };
    const first = await post({ method: "tools/call", params, id: "r1" });
    const asked = (first.body as { id: string; result: Record<string, unknown> }).result as {
      resultType: string;
      inputRequests: Record<string, { method: string }>;
      requestState: string;
    };
    expect((first.body as { id: string }).id).toBe("r1");
    expect(asked.resultType).toBe("input_required");
    const [nameKey, nameRequest] = Object.entries(asked.inputRequests)[0]!;
    expect(nameRequest).toMatchObject({ method: "elicitation/create", params: { message: "Your name?" } });

    // A state that was altered, or presented for another tool, is refused and changes nothing.
    const tampered = `${asked.requestState.slice(0, -2)}xx`;
    const refused = await post({
      method: "tools/call",
      params: { ...params, inputResponses: {}, requestState: tampered },
      id: "r-bad",
    });
    expect(refused).toMatchObject({ status: 400, body: { id: "r-bad", error: { code: -32602 } } });
    const elsewhere = await post({
      method: "tools/call",
      params: { ...params, name: "my-demo-echo", requestState: asked.requestState },
      id: "r-other",
    });
    expect(elsewhere).toMatchObject({ status: 400, body: { id: "r-other", error: { code: -32602 } } });

    // Retrying without the answer asks again; with it, the upstream's next question comes back.
    const again = await post({
      method: "tools/call",
      params: { ...params, requestState: asked.requestState },
      id: "r2",
    });
    const againResult = (again.body as { result: typeof asked }).result;
    expect(Object.keys(againResult.inputRequests)).toEqual([nameKey]);
    const second = await post({
      method: "tools/call",
      params: {
        ...params,
        inputResponses: { [nameKey]: { action: "accept", content: { name: "Ada" } } },
        requestState: againResult.requestState,
      },
      id: "r3",
    });
    const sampling = (second.body as { id: string; result: typeof asked }).result;
    expect((second.body as { id: string }).id).toBe("r3");
    const [sampleKey, sampleRequest] = Object.entries(sampling.inputRequests)[0]!;
    expect(sampleRequest.method).toBe("sampling/createMessage");
    const done = await post({
      method: "tools/call",
      params: {
        ...params,
        inputResponses: {
          [sampleKey]: { model: "m", role: "assistant", content: { type: "text", text: "sampled" } },
        },
        requestState: sampling.requestState,
      },
      id: "r4",
    });
    expect(done.body).toMatchObject({
      id: "r4",
      result: { resultType: "complete", content: [{ type: "text", text: "hello Ada, sampled" }] },
    });
    // The call is over: its state continues nothing any more.
    const replay = await post({
      method: "tools/call",
      params: { ...params, requestState: sampling.requestState },
      id: "r5",
    });
    expect(replay).toMatchObject({ status: 400, body: { id: "r5", error: { code: -32602 } } });
  });

  it("completes a held call when its retries reach another gateway process, and refuses cleanly once its holder is gone", async () => {
    const other = await startOtherRoute();
    const elsewhere = other.base;
    const capable = { ...META, "io.modelcontextprotocol/clientCapabilities": { elicitation: {}, sampling: {} } };
    const params = { name: "my-demo-ask", arguments: {}, _meta: capable };
    type Asked = { resultType: string; inputRequests: Record<string, { method: string }>; requestState: string };
    try {
      // Asked by this process; answered, round after round, through the other one (no sticky routing).
      const first = (await post({ method: "tools/call", params, id: "x1" })).body as { result: Asked };
      const [nameKey] = Object.keys(first.result.inputRequests);
      const second = await retry(params, first.result.requestState, "x2", elsewhere, {
        [nameKey!]: { action: "accept", content: { name: "Lin" } },
      });
      expect(second).toMatchObject({ status: 200, body: { id: "x2", result: { resultType: "input_required" } } });
      const sampling = (second.body as { result: Asked }).result;
      const [sampleKey, sampleRequest] = Object.entries(sampling.inputRequests)[0]!;
      expect(sampleRequest.method).toBe("sampling/createMessage");
      const done = await retry(params, sampling.requestState, "x3", elsewhere, {
        [sampleKey]: { model: "m", role: "assistant", content: { type: "text", text: "far" } },
      });
      expect(done.body).toMatchObject({
        id: "x3",
        result: { resultType: "complete", content: [{ type: "text", text: "hello Lin, far" }] },
      });
      // Over: the holder says so through the other process, which answers at once.
      const replay = await retry(params, sampling.requestState, "x4", elsewhere);
      expect(replay).toMatchObject({ status: 400, body: { id: "x4", error: { code: -32602 } } });

      // Held by the other process, which then goes away: the retry here is refused at once, not left waiting.
      const held = (await post({ method: "tools/call", params, id: "y1", base: elsewhere })).body as {
        result: Asked;
      };
      expect(held.result.resultType).toBe("input_required");
      await other.stop();
      const started = Date.now();
      const orphan = await retry(params, held.result.requestState, "y2");
      expect(orphan).toMatchObject({ status: 400, body: { id: "y2", error: { code: -32602 } } });
      expect((orphan.body as { error: { message: string } }).error.message).toMatch(/gone/);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await other.stop();
    }
  }, 90_000);

  it("lets an SDK v2 client at 2026-07-28 answer an upstream's questions through its own handlers", async () => {
    const client = new ClientV2(
      { name: "v2-capable", version: "1.0.0" },
      { capabilities: { elicitation: {}, sampling: {} }, versionNegotiation: { mode: { pin: V } } },
    );
    client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { name: "Grace" } }));
    client.setRequestHandler("sampling/createMessage", async () => ({
      model: "m",
      role: "assistant",
      content: { type: "text", text: "via v2" },
    }));
    await client.connect(
      new TransportV2(new URL("/api/mcp", routeBase()), {
        requestInit: { headers: { authorization: `Bearer ${ctx.token}` } },
      }),
    );
    expect(await client.callTool({ name: "my-demo-ask", arguments: {} })).toMatchObject({
      content: [{ type: "text", text: "hello Grace, via v2" }],
    });
    await client.close();
  });

  it("streams the list changes a subscriptions/listen asked for, tagged with its id, and nothing else", async () => {
    const controller = new AbortController();
    const res = await fetch(new URL("/api/mcp", routeBase()), {
      method: "POST",
      signal: controller.signal,
      headers: {
        authorization: `Bearer ${ctx.token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": V,
        "mcp-method": "subscriptions/listen",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "sub-1",
        method: "subscriptions/listen",
        params: {
          _meta: META,
          notifications: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ["my-demo|x"] },
        },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body!.getReader();
    const frames: Record<string, unknown>[] = [];
    let buffer = "";
    const readUntil = async (count: number) => {
      while (frames.length < count) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += new TextDecoder().decode(value);
        const lines = buffer.split("\n");
        buffer = lines.pop()!;
        for (const line of lines) if (line.startsWith("data: ")) frames.push(JSON.parse(line.slice(6)));
      }
    };
    await readUntil(1);
    expect(frames[0]).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: {
        // The demo upstream offers no resource subscriptions: acknowledged without them.
        notifications: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: [] },
        _meta: { "io.modelcontextprotocol/subscriptionId": "sub-1" },
      },
    });
    // A catalogue change of the member.
    await publishMemberEvent(ctx);
    await readUntil(3);
    expect(frames.slice(1).map((f) => f.method)).toEqual([
      "notifications/tools/list_changed",
      "notifications/prompts/list_changed",
    ]);
    for (const frame of frames.slice(1))
      expect(frame).toMatchObject({ params: { _meta: { "io.modelcontextprotocol/subscriptionId": "sub-1" } } });
    controller.abort();
  });

  it("serves a member's plain requests on one shared proxy: the same id at once, each its own answer", async () => {
    // Clients choose their ids, and two at once may choose the same: the shared proxy's server sees ids of ours.
    const calls = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        post({ method: "tools/call", params: { name: "my-demo-echo", arguments: { text: `same ${i}` }, _meta: META } }),
      ),
    );
    calls.forEach((call, i) =>
      expect(call.body).toMatchObject({ id: 1, result: { content: [{ type: "text", text: `echo: same ${i}` }] } }),
    );
    expect(sharedCount()).toBeGreaterThan(0);
  });

  it("cancels a call upstream when its client closes the response, leaving the member's other calls running", async () => {
    const waitCall = (id: number) => {
      const controller = new AbortController();
      let settled = false;
      const done = post({
        method: "tools/call",
        params: { name: "my-demo-wait", arguments: {}, _meta: META },
        id,
        signal: controller.signal,
      })
        .catch(() => undefined)
        .finally(() => (settled = true));
      return { abort: () => controller.abort(), done, settled: () => settled };
    };
    const before = cancelled;
    const first = waitCall(1);
    const second = waitCall(2);
    await expect.poll(() => waiting).toBe(2);
    // Closing the response stream cancels the request (2026-07-28): the upstream hears of it and stops the call.
    // The member's connection to the upstream stays: dropping it (as a cancelled request once did) lost that
    // notification, and failed the member's other calls in flight on it.
    first.abort();
    await first.done;
    await expect.poll(() => cancelled).toBe(before + 1);
    expect(waiting).toBe(1);
    expect(second.settled()).toBe(false);
    second.abort();
    await second.done;
    await expect.poll(() => cancelled).toBe(before + 2);
    const next = await post({
      method: "tools/call",
      params: { name: "my-demo-echo", arguments: { text: "after" }, _meta: META },
    });
    expect(next.body).toMatchObject({ result: { content: [{ type: "text", text: "echo: after" }] } });
  });

  it("builds the shared proxy anew after a live event of the member: a changed catalogue shows at once", async () => {
    const offersCompletions = async () =>
      "completions" in
      ((await post({ method: "server/discover" })).body as { result: { capabilities: object } }).result.capabilities;
    const had = await offersCompletions();
    const db = getDb();
    const stored = (await db.instance.findUniqueOrThrow({ where: { id: ctx.instanceId } })).capabilities as Record<
      string,
      unknown
    >;
    const { completions: _completions, ...without } = stored;
    const changed = async (capabilities: Record<string, unknown>) => {
      await db.instance.update({ where: { id: ctx.instanceId }, data: { capabilities: capabilities as never } });
      await publishMemberEvent(ctx);
    };
    try {
      // What the member's upstreams offer is read when a proxy is built: a shared one kept past the event would
      // go on answering with what it read before (until it is as old as the catalogue cache may be, 15 s).
      await changed(had ? without : { ...stored, completions: {} });
      await expect.poll(offersCompletions, { timeout: 3_000 }).toBe(!had);
    } finally {
      await changed(stored);
    }
    await expect.poll(offersCompletions, { timeout: 3_000 }).toBe(had);
  });
});
