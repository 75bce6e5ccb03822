import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUOTA_WINDOWS } from "@switchboard/core/governance";
import { demoServer } from "@switchboard/core/testing/demo-server";
import { waitUntil } from "@switchboard/testing/wait";
import { replaceTeamToolQuotas } from "@switchboard/db/queries/quota";
import { startOtherRoute, type OtherRoute } from "./support/other-route";
import { ACCEPT, openRawSession, startRouteTeam, stopRouteTeam, type RouteTeam } from "./support/route-team";

/**
 * Quotas on tool calls through the route, on two gateway processes sharing Redis and PostgreSQL: the limit holds
 * over both processes, both protocol revisions and new sessions, and a concurrent burst never passes more calls
 * than the limit.
 */

const V2026 = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": V2026,
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** Calls each upstream tool received. */
const seen: Record<string, number> = { look: 0, burst: 0, write: 0 };

let ctx: RouteTeam;
let other: OtherRoute;

beforeAll(async () => {
  const demo = demoServer();
  ctx = await startRouteTeam(() => {
    const server = demo();
    for (const [name, readOnly] of [
      ["look", true],
      ["burst", true],
      ["write", false],
    ] as const)
      server.registerTool(name, { description: name, annotations: { readOnlyHint: readOnly } }, async () => {
        seen[name]!++;
        return { content: [{ type: "text", text: `${name} done` }] };
      });
    return server;
  });
  const installationId = ctx.installation.id;
  await replaceTeamToolQuotas(ctx.db, {
    teamId: ctx.team.id,
    quotas: [
      { installationId, toolName: "look", subject: "token", window: "hour", max: 4, writeMax: null },
      { installationId, toolName: "burst", subject: "tool", window: "minute", max: 5, writeMax: null },
      { installationId, toolName: "write", subject: "member", window: "day", max: 10, writeMax: 2 },
    ],
  });
  other = await startOtherRoute();
}, 60_000);

afterAll(async () => {
  await other?.stop();
  await stopRouteTeam(ctx?.upstream);
});

type Answer = {
  result?: { content?: Array<{ text?: string }> };
  error?: { code: number; message: string; data?: Record<string, unknown> };
};

/** The JSON-RPC answer of a POST, whether it came as JSON or as an event stream. */
async function answer(res: Response): Promise<{ status: number; body: Answer }> {
  const text = await res.text();
  const body = (res.headers.get("content-type") ?? "").includes("text/event-stream")
    ? (text
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => JSON.parse(l.slice(6)) as Answer & { id?: unknown })
        .find((m) => m.id !== undefined) as Answer)
    : (JSON.parse(text) as Answer);
  return { status: res.status, body };
}

let nextId = 0;

/** A tools/call in an open 2025-11-25 session (each with its own request id: a session refuses one in use). */
async function callInSession(base: string, token: string, sessionId: string, name: string) {
  const res = await fetch(new URL("/api/mcp", base), {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: ACCEPT,
      "mcp-session-id": sessionId,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++nextId, method: "tools/call", params: { name, arguments: {} } }),
  });
  return answer(res);
}

/** A 2026-07-28 tools/call (no session). */
async function call2026(base: string, token: string, name: string) {
  const res = await fetch(new URL("/api/mcp", base), {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: ACCEPT,
      "mcp-protocol-version": V2026,
      "mcp-method": "tools/call",
      "mcp-name": name,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name, arguments: {}, _meta: META } }),
  });
  return answer(res);
}

function expectRefused(body: Answer, expected: { limit: number; window: string; subject: string; counts: string }) {
  expect(body.result).toBeUndefined();
  expect(body.error?.code).toBe(-32029);
  expect(body.error?.data).toMatchObject(expected);
  const resetAt = Date.parse(String(body.error?.data?.resetAt));
  expect(resetAt).toBeGreaterThan(Date.now() - 1000);
  const seconds = Math.ceil((resetAt - Date.now()) / 1000);
  expect(seconds).toBeLessThanOrEqual(QUOTA_WINDOWS[expected.window as keyof typeof QUOTA_WINDOWS]);
  expect(body.error?.message).toMatch(
    new RegExp(
      `^Quota reached: at most ${expected.limit} .* per ${expected.window} .*; it resets in \\d+ s \\(.+\\)\\.$`,
    ),
  );
}

describe("quotas on tool calls", () => {
  it("hold a token's limit over two gateway processes, both revisions and a new session", async () => {
    const token = await ctx.newToken("quota-look");
    const first = await openRawSession(ctx.base, token);
    // Calls under the limit are answered as ever.
    expect((await callInSession(ctx.base, token, first, "my-demo-look")).body.result?.content?.[0]?.text).toBe(
      "look done",
    );
    expect((await callInSession(ctx.base, token, first, "my-demo-look")).body.result).toBeDefined();
    // A new session on another process does not start the count again.
    const second = await openRawSession(other.base, token);
    expect((await callInSession(other.base, token, second, "my-demo-look")).body.result).toBeDefined();
    expect((await call2026(other.base, token, "my-demo-look")).body.result).toBeDefined();

    for (const refused of [
      await callInSession(ctx.base, token, first, "my-demo-look"),
      await callInSession(other.base, token, await openRawSession(other.base, token), "my-demo-look"),
      await call2026(ctx.base, token, "my-demo-look"),
      await call2026(other.base, token, "my-demo-look"),
    ]) {
      expect(refused.status).toBe(200);
      expectRefused(refused.body, { limit: 4, window: "hour", subject: "token", counts: "calls" });
      expect(refused.body.error?.message).toContain("for this token");
    }
    expect(seen.look).toBe(4);

    // The limit is the token's: another token of the same member still calls.
    const fresh = await ctx.newToken("quota-look-2");
    expect((await call2026(ctx.base, fresh, "my-demo-look")).body.result).toBeDefined();
    expect(seen.look).toBe(5);
  });

  it("never lets a concurrent burst over two processes pass more calls than the limit", async () => {
    const tokens = [await ctx.newToken("burst-a"), await ctx.newToken("burst-b")];
    const sessions = await Promise.all([openRawSession(ctx.base, tokens[0]!), openRawSession(other.base, tokens[1]!)]);
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => {
        const base = i % 2 === 0 ? ctx.base : other.base;
        const token = tokens[i % 2]!;
        return i % 3 === 0
          ? call2026(base, token, "my-demo-burst")
          : callInSession(base, token, sessions[i % 2]!, "my-demo-burst");
      }),
    );
    const passed = answers.filter((a) => a.body.result !== undefined);
    const refused = answers.filter((a) => a.body.error !== undefined);
    expect(passed).toHaveLength(5);
    expect(refused).toHaveLength(19);
    for (const r of refused) expectRefused(r.body, { limit: 5, window: "minute", subject: "tool", counts: "calls" });
    expect(refused[0]!.body.error?.message).toContain("for my-demo-burst");
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(seen.burst).toBe(5);
  });

  it("counts calls to a tool that is not read-only against the stricter limit on writes", async () => {
    const token = await ctx.newToken("quota-write");
    expect((await call2026(ctx.base, token, "my-demo-write")).body.result).toBeDefined();
    expect((await call2026(other.base, token, "my-demo-write")).body.result).toBeDefined();
    const refused = await call2026(ctx.base, token, "my-demo-write");
    expectRefused(refused.body, { limit: 2, window: "day", subject: "member", counts: "writes" });
    expect(refused.body.error?.message).toContain("calls to tools that are not read-only per day for you in this team");
    expect(seen.write).toBe(2);
    // The request log shows who hit which limit: blocked, with the sentence the client read.
    await waitUntil(
      async () =>
        (await ctx.db.toolCallLog.count({
          where: { target: "write", outcome: "blocked", errorMessage: refused.body.error?.message },
        })) === 1,
      "the refused call in the request log",
    );
  });

  it("leaves tools without a limit untouched", async () => {
    const token = await ctx.newToken("quota-none");
    for (let i = 0; i < 6; i++)
      expect((await call2026(i % 2 ? other.base : ctx.base, token, "my-demo-fail")).body.error).toBeUndefined();
  });
});
