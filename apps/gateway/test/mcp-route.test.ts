import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { demoServer } from "@switchboard/core/testing/demo-server";
import type { HttpFixture } from "@switchboard/core/testing/http-fixture";
import { startStreamableHttpServer } from "@switchboard/core/testing/streamable-http-server";
import { createLiveEvent } from "@switchboard/core/events";
import { getDb } from "@switchboard/db/client";
import { revokeAccessToken } from "@switchboard/db/queries/token";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { makeAccessToken, makeTeamWithMember } from "@switchboard/db/testing";
import { describe, expect, it } from "vitest";
import { redis } from "@switchboard/runtime/redis";
import { invalidateAccess } from "@switchboard/runtime/invalidations";
import { onTeamCalls } from "@switchboard/runtime/live-events";
import type { CallsLogged } from "@switchboard/core/events";
import { forgetLocalSessions, liveSessionCount } from "../src/mcp/sessions";
import { env } from "@switchboard/runtime/env";
import { redisChannels } from "@switchboard/core/contracts";
import { request } from "node:http";
import { reloadEnv } from "@switchboard/runtime/env";
import { connectClient, discoverInto, routeBase, routeForFile } from "./support/mcp";

let upstream: HttpFixture;
const SECRET = "sk-alice-very-secret-123";

async function setup() {
  const db = getDb();
  // Alice owns the team, Bob is a member.
  const { owner: alice, member: bob, team } = await makeTeamWithMember(db);

  const template = await seedTemplate(db, {
    teamId: team.id,
    slug: "my-demo",
    name: "Demo",
    transport: "streamable_http",
    url: upstream.url("/mcp"),
    fields: [{ key: "X-Api-Key", tier: "user", kind: "header", secret: true }],
  });
  const shared = await seedInstallation(db, {
    template,
    memberValues: { [alice.id]: { "X-Api-Key": SECRET }, [bob.id]: { "X-Api-Key": "sk-bob-key-4567" } },
  });
  const template2 = await seedTemplate(db, {
    teamId: team.id,
    slug: "private",
    name: "Private",
    transport: "streamable_http",
    url: upstream.url("/mcp"),
  });
  const alicesOnly = await seedInstallation(db, { template: template2 });
  await db.instance.deleteMany({ where: { installationId: alicesOnly.id, userId: bob.id } });

  const inst = (installationId: string, userId: string) =>
    db.instance.findFirstOrThrow({ where: { installationId, userId } });
  const aliceShared = await inst(shared.id, alice.id);
  const bobShared = await inst(shared.id, bob.id);
  const alicePrivate = await inst(alicesOnly.id, alice.id);
  await discoverInto(aliceShared.id, "my-demo", upstream.url("/mcp"));
  await discoverInto(bobShared.id, "my-demo", upstream.url("/mcp"));
  await discoverInto(alicePrivate.id, "private", upstream.url("/mcp"));

  const aliceToken = (await makeAccessToken(db, { userId: alice.id, teamId: team.id })).token;
  const bobToken = (await makeAccessToken(db, { userId: bob.id, teamId: team.id })).token;
  return { db, alice, bob, team, shared, alicesOnly, aliceShared, alicePrivate, aliceToken, bobToken };
}

const ctx = routeForFile({
  start: async () => [(upstream = await new HttpFixtureStarter().start())],
  setup,
});

class HttpFixtureStarter {
  start() {
    return startStreamableHttpServer(demoServer());
  }
}

const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${routeBase()}/api/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body,
  });

describe("the hosted MCP route", () => {
  it("lists the member's online instances, namespaced, and calls a tool with the secret redacted from the log", async () => {
    const { client } = await connectClient(ctx.aliceToken);
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(names).toContain("my-demo-echo");
    expect(names).toContain("private-echo");
    const result = await client.callTool({ name: "my-demo-echo", arguments: { text: `key is ${SECRET}` } });
    expect(JSON.stringify(result.content)).toContain(SECRET);
    // The upstream got the member's own header.
    expect(upstream.requests.some((r) => r.headers["x-api-key"] === SECRET)).toBe(true);
    await expect.poll(() => ctx.db.toolCallLog.count({ where: { instanceId: ctx.aliceShared.id } })).toBe(1);
    const log = await ctx.db.toolCallLog.findFirstOrThrow({ where: { instanceId: ctx.aliceShared.id } });
    expect(log).toMatchObject({ method: "tools/call", target: "echo", outcome: "success", userId: ctx.alice.id });
    expect(JSON.stringify(log.arguments)).not.toContain(SECRET);
    await client.close();
  });

  it("announces written request-log rows to the team's consoles: counts per installation and member, no call contents", async () => {
    const heard: CallsLogged[] = [];
    const off = onTeamCalls(ctx.team.id, (m) => heard.push(m));
    try {
      const { client } = await connectClient(ctx.bobToken);
      const secretArg = "bob-argument-never-announced";
      await client.callTool({ name: "my-demo-echo", arguments: { text: secretArg } });
      await client.callTool({ name: "my-demo-echo", arguments: { text: secretArg } });
      await client.close();
      // (The previous test's call may be announced late: only Bob's are counted.)
      const bobs = () => heard.flatMap((m) => m.calls).filter((c) => c.userId === ctx.bob.id);
      await expect.poll(() => bobs().reduce((n, c) => n + c.count, 0), { timeout: 10_000 }).toBe(2);
      expect(bobs().every((c) => c.installationId === ctx.shared.id)).toBe(true);
      for (const m of heard) {
        expect(m.teamId).toBe(ctx.team.id);
        // Only ids and counts travel: a console tab reads the rows through its own authorized query.
        expect(Object.keys(m).sort()).toEqual(["at", "calls", "teamId"]);
        expect(JSON.stringify(m)).not.toContain(secretArg);
        expect(JSON.stringify(m)).not.toContain("echo");
      }
      // The announcement follows the write: the rows are there when a tab refetches.
      expect(await ctx.db.toolCallLog.count({ where: { userId: ctx.bob.id, teamId: ctx.team.id } })).toBe(2);
    } finally {
      off();
    }
  });

  it("never shows a member another member's instances", async () => {
    const { client } = await connectClient(ctx.bobToken);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("my-demo-echo");
    expect(names.some((n) => n.startsWith("private-"))).toBe(false);
    const call = await client.callTool({ name: "private-echo", arguments: { text: "x" } }).catch((e: unknown) => e);
    expect(String(call)).toContain("Unknown tool");
    await client.close();
  });

  it("hides a requires_reauth instance's tools and answers calls with the re-authenticate message", async () => {
    // As the worker does: write the status, then publish it (which drops every process's cached catalogue).
    await ctx.db.instance.update({ where: { id: ctx.alicePrivate.id }, data: { status: "requires_reauth" } });
    await publish("status_changed", ctx.alicePrivate.id, { from: "online", to: "requires_reauth" });
    try {
      const { client } = await connectClient(ctx.aliceToken);
      await expect
        .poll(async () => (await client.listTools()).tools.some((t) => t.name.startsWith("private-")))
        .toBe(false);
      const result = await client.callTool({ name: "private-echo", arguments: { text: "x" } });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/Private.*re-authenticate/i);
      await client.close();
    } finally {
      await ctx.db.instance.update({ where: { id: ctx.alicePrivate.id }, data: { status: "online" } });
      await publish("status_changed", ctx.alicePrivate.id, { from: "requires_reauth", to: "online" });
    }
  });

  it("serves a session on a process that did not start it (state lives in Redis)", async () => {
    const { client } = await connectClient(ctx.aliceToken);
    await client.listTools();
    await forgetLocalSessions();
    const again = await client.callTool({ name: "my-demo-echo", arguments: { text: "elsewhere" } });
    expect(JSON.stringify(again.content)).toContain("echo: elsewhere");
    await client.close();
  });

  it("keeps at most MCP_MAX_LIVE_SESSIONS in memory, least recently used out first, and still serves an evicted one", async () => {
    await forgetLocalSessions();
    process.env.MCP_MAX_LIVE_SESSIONS = "2";
    reloadEnv();
    try {
      const a = await connectClient(ctx.aliceToken);
      const b = await connectClient(ctx.aliceToken);
      await a.client.listTools(); // a is now the most recently used
      const c = await connectClient(ctx.aliceToken);
      expect(liveSessionCount()).toBe(2);
      // b was the least recently used: dropped from memory, rebuilt from Redis on its next request.
      const again = await b.client.callTool({ name: "my-demo-echo", arguments: { text: "evicted" } });
      expect(JSON.stringify(again.content)).toContain("echo: evicted");
      expect(liveSessionCount()).toBe(2);
      await Promise.all([a, b, c].map((x) => x.client.close()));
    } finally {
      delete process.env.MCP_MAX_LIVE_SESSIONS;
      reloadEnv();
    }
  });

  it("uses an upstream that was killed and restarted mid-session again, without the client reconnecting", async () => {
    const { client } = await connectClient(ctx.aliceToken);
    expect(
      JSON.stringify((await client.callTool({ name: "my-demo-echo", arguments: { text: "before" } })).content),
    ).toContain("echo: before");
    // The upstream restarts on the same port and forgets every session; the route's connection re-initializes.
    await upstream.stop();
    await upstream.start();
    const after = await client.callTool({ name: "my-demo-echo", arguments: { text: "after restart" } });
    expect(after.isError, JSON.stringify(after.content)).not.toBe(true);
    expect(JSON.stringify(after.content)).toContain("echo: after restart");
    await client.close();
  });

  it("notifies connected clients when the member's catalogue changes", async () => {
    const { client } = await connectClient(ctx.aliceToken);
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    await client.listTools();
    // Open the standalone GET stream the SDK client uses for server-initiated notifications.
    await expect
      .poll(
        async () => {
          await publish("status_changed", ctx.alicePrivate.id, { from: "online", to: "offline" });
          return changed;
        },
        { timeout: 10_000, interval: 300 },
      )
      .toBeGreaterThan(0);
    await client.close();
  });

  it("exposes one installation under original names at /api/mcp/servers/{slug}", async () => {
    const { client } = await connectClient(ctx.aliceToken, "my-demo");
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("echo");
    expect(names).not.toContain("my-demo-echo");
    await client.close();
    const missing = await connectClient(ctx.aliceToken, "does-not-exist").catch((e: unknown) => e);
    expect(String(missing)).toMatch(/No server .does-not-exist. is installed/);
  });

  it("exposes four meta-tools to a router-mode token", async () => {
    const { token } = await makeAccessToken(ctx.db, {
      userId: ctx.alice.id,
      teamId: ctx.team.id,
      name: "router",
      mode: "router",
    });
    const { client } = await connectClient(token);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      "search_tools",
      "call_tool",
      "list_resources",
      "read_resource",
    ]);
    const found = await client.callTool({ name: "search_tools", arguments: { query: "echo" } });
    expect(JSON.stringify(found.content)).toContain("my-demo-echo");
    await client.close();
  });
});

describe("refusals", () => {
  it("answers 401 with a Bearer challenge naming its protected-resource metadata without a token, and invalid_token for a bad or revoked one", async () => {
    const none = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
    expect(none.status).toBe(401);
    // Where an OAuth client learns to sign in (RFC 9728): the metadata under the route's own path.
    expect(none.headers.get("www-authenticate")).toMatch(
      /^Bearer realm="switchboard", resource_metadata="http:\/\/[^"]+\/\.well-known\/oauth-protected-resource\/api\/mcp", scope="mcp offline_access"$/,
    );
    const bad = await post("{}", { authorization: "Bearer sbp_" + "x".repeat(40) });
    expect(bad.status).toBe(401);
    expect(bad.headers.get("www-authenticate")).toContain('error="invalid_token"');

    const created = await makeAccessToken(ctx.db, { userId: ctx.alice.id, teamId: ctx.team.id, name: "to revoke" });
    const { client } = await connectClient(created.token);
    await client.listTools();
    // Revoking exactly as the console does (`revoke` in apps/web/src/server/services/access-token.service.ts):
    // the row is marked revoked, then the revocation is announced through Redis; the route's cached principal
    // goes on receipt.
    expect(await revokeAccessToken(ctx.db, { userId: ctx.alice.id, teamId: ctx.team.id, tokenId: created.id })).toBe(
      true,
    );
    await invalidateAccess({ tokenId: created.id });
    await expect
      .poll(async () => String(await client.listTools().catch((e: unknown) => e)), { timeout: 10_000 })
      .toMatch(/401|revoked|Unauthorized/i);
  });

  it("refuses a foreign Origin or Host (DNS rebinding)", async () => {
    const auth = { authorization: `Bearer ${ctx.aliceToken}` };
    const origin = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }), {
      ...auth,
      origin: "http://evil.example",
    });
    expect(origin.status).toBe(403);
    // fetch does not let a caller set Host; a rebinding attack arrives with the attacker's name in it.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${routeBase()}/api/mcp`,
        { method: "POST", headers: { ...auth, host: "evil.example:3000", "content-type": "application/json" } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end("{}");
    });
    expect(status).toBe(403);
  });

  it("accepts a browser Origin that names a host the operator allowed, and no other", async () => {
    const auth = { authorization: `Bearer ${ctx.aliceToken}` };
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    // startRoute lists the route's own 127.0.0.1:<port> in MCP_ALLOWED_HOSTS, as an operator lists a public name.
    const allowedHost = new URL(routeBase()).host;
    const listed = await post(ping, { ...auth, origin: `http://${allowedHost}` });
    expect(listed.status).not.toBe(403);
    const otherPort = await post(ping, { ...auth, origin: `http://127.0.0.1:1` });
    expect(otherPort.status).toBe(403);
  });

  it("answers malformed and oversized bodies with JSON-RPC errors, never a 500", async () => {
    const auth = { authorization: `Bearer ${ctx.aliceToken}` };
    const notJson = await post("{not json", auth);
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).error.code).toBe(-32700);
    const notRpc = await post(JSON.stringify({ hello: "world" }), auth);
    expect(notRpc.status).toBe(400);
    expect((await notRpc.json()).error.code).toBe(-32600);
    const big = await post(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(1_100_000) } }),
      auth,
    );
    expect(big.status).toBe(413);
    const form = await post("jsonrpc=2.0", { ...auth, "content-type": "application/x-www-form-urlencoded" });
    expect(form.status).toBe(415);
    expect((await form.json()).error.code).toBe(-32600);
    const noSession = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }), auth);
    expect(noSession.status).toBe(400);
    const unknownSession = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }), {
      ...auth,
      "mcp-session-id": "nope",
    });
    expect(unknownSession.status).toBe(404);
  });
});

describe("input the SDK or the database would choke on", () => {
  async function openSession() {
    const auth = { authorization: `Bearer ${ctx.aliceToken}` };
    const init = await post(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      }),
      auth,
    );
    expect(init.status).toBe(200);
    await init.text();
    const headers = { ...auth, "mcp-session-id": init.headers.get("mcp-session-id")! };
    expect((await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), headers)).status).toBe(
      202,
    );
    return headers;
  }

  it("answers what the SDK would silently drop with -32600/-32602 and the request's id, a batch with an answer per request", async () => {
    const headers = await openSession();
    const cases: [unknown, unknown][] = [
      [
        { jsonrpc: "2.0", id: 1.5, method: "tools/list" },
        { id: null, error: { code: -32600 } },
      ],
      [
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: ["my-demo-echo"] },
        { id: 2, error: { code: -32602 } },
      ],
      [
        {
          jsonrpc: "2.0",
          id: "p",
          method: "tools/call",
          params: { name: "my-demo-echo", arguments: { text: "x" }, _meta: { progressToken: { a: 1 } } },
        },
        { id: "p", error: { code: -32602 } },
      ],
      [
        [
          { jsonrpc: "2.0", id: 3, method: "tools/list" },
          { jsonrpc: "2.0", id: 4, method: "ping", params: 7 },
        ],
        [
          { id: 3, error: { code: -32600 } },
          { id: 4, error: { code: -32602 } },
        ],
      ],
    ];
    for (const [body, answer] of cases) {
      const response = await post(JSON.stringify(body), headers);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(await response.json()).toMatchObject(answer as object);
    }
    // The session is unharmed.
    const ok = await post(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 5,
        method: "tools/call",
        params: { name: "my-demo-echo", arguments: { text: "fine" } },
      }),
      headers,
    );
    expect(JSON.stringify(await ok.json())).toContain("echo: fine");
  });

  it("refuses NUL, unpaired surrogates, invalid UTF-8, deep nesting and undecodable server names with 400", async () => {
    const headers = await openSession();
    const call = (text: string) =>
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"my-demo-echo","arguments":{"text":"${text}"}}}`;
    for (const body of [
      call(String.raw`a\u0000b`),
      call(String.raw`\ud800`),
      `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":${"[".repeat(5_000)}${"]".repeat(5_000)}}}`,
    ]) {
      const response = await post(body, headers);
      expect(response.status, body.slice(0, 120)).toBe(400);
      expect((await response.json()).error.code).toBe(-32600);
    }
    const badBytes = await fetch(`${routeBase()}/api/mcp`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: Buffer.concat([Buffer.from(call("")).subarray(0, -4), Buffer.from([0xc3, 0x28]), Buffer.from('"}}}')]),
    });
    expect(badBytes.status).toBe(400);
    expect((await badBytes.json()).error.message).toMatch(/UTF-8/);
    for (const path of ["/api/mcp/servers/%00", "/api/mcp/servers/%ED%A0%80", "/api/mcp/servers/a%0Ab"]) {
      const response = await fetch(`${routeBase()}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${ctx.aliceToken}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
        }),
      });
      expect(response.status, path).toBe(400);
      expect(await response.text()).not.toMatch(/prisma|postgres|byte sequence/i);
    }
  });
});

async function publish(type: "status_changed", instanceId: string, payload: { from: string; to: string }) {
  const inst = await ctx.db.instance.findUniqueOrThrow({ where: { id: instanceId }, include: { installation: true } });
  const event = createLiveEvent(
    type,
    { teamId: inst.installation.teamId, installationId: inst.installationId, instanceId, userId: inst.userId },
    payload as never,
    new Date(),
  );
  await redis().publish(redisChannels.member(env().REDIS_PREFIX, inst.userId), JSON.stringify(event));
}
