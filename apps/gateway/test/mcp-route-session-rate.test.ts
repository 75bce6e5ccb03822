import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keysMatching } from "@switchboard/testing/redis";
import { redisKeys } from "@switchboard/core/contracts";
import { makeAccessToken, makeUser } from "@switchboard/db/testing";
import { env } from "@switchboard/runtime/env";
import { redis } from "@switchboard/runtime/redis";
import { authenticate } from "../src/auth/authenticate";
import { CLOSED_MARKER_TTL_SECONDS } from "../src/mcp/session-store";
import { startOtherRoute, type OtherRoute } from "./support/other-route";
import { ACCEPT, initializeBody, openRawSession, routeTeamForFile, sessionRequest } from "./support/route-team";

// Read by env() on first use, after this, and inherited by the other route process.
process.env.MCP_SESSIONS_PER_MINUTE_PER_TOKEN = "3";
process.env.MCP_SESSIONS_PER_MINUTE_PER_MEMBER = "5";
process.env.MCP_MAX_SESSIONS_PER_TOKEN = "2";

const ctx = routeTeamForFile();
let other: OtherRoute;

beforeAll(async () => {
  other = await startOtherRoute();
}, 60_000);

afterAll(async () => {
  await other?.stop();
});

/** An initialize as a client sends it, to this route or another process's. */
async function initialize(token: string, base = ctx.base) {
  const res = await fetch(new URL("/api/mcp", base), {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: ACCEPT },
    body: JSON.stringify(initializeBody("init-1")),
  });
  const body = (await res.json()) as {
    id?: unknown;
    error?: { code: number; message: string; data?: Record<string, unknown> };
  };
  return {
    status: res.status,
    retryAfter: res.headers.get("retry-after"),
    session: res.headers.get("mcp-session-id"),
    body,
  };
}

/** Every closed-session marker under the test run's prefix (any member: the tag is a pattern too). */
const markers = async () =>
  keysMatching(redis(), redisKeys.mcpSessionClosed(env().REDIS_PREFIX, { teamId: "*", userId: "*" }, "*"));

describe("the rate at which MCP sessions are opened", () => {
  it("refuses a token's new sessions past its rate, counted over every gateway process, with 429 and when to retry", async () => {
    const token = await ctx.newToken("rate");
    const owner = (await authenticate({ db: ctx.db, bearer: token }))!;
    const open = [await openRawSession(ctx.base, token), await openRawSession(other.base, token)];
    expect((await initialize(token, other.base)).status).toBe(200);

    const refused = await initialize(token);
    expect(refused.status).toBe(429);
    expect(refused.session).toBeNull();
    const retryAfter = Number(refused.retryAfter);
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expect(refused.body).toMatchObject({
      id: "init-1",
      error: {
        code: -32029,
        message: `Too many new MCP sessions for this token (at most 3 a minute); try again in ${retryAfter} s, or reuse an open session.`,
        data: { limit: "token", max: 3, windowSeconds: 60, retryAfterSeconds: retryAfter },
      },
    });
    const resetsAt = Date.parse(String(refused.body.error?.data?.resetsAt));
    expect(resetsAt).toBeGreaterThan(Date.now());
    // The other process refuses too: the count is in Redis.
    expect((await initialize(token, other.base)).status).toBe(429);
    // Nothing was started for the refused ones; the open sessions still serve.
    expect(await redis().zcard(redisKeys.mcpTokenSessions(env().REDIS_PREFIX, owner, owner.tokenId))).toBe(2);
    expect((await sessionRequest(ctx.base, token, open[1]!, "tools/list")).status).toBe(200);
  });

  it("refuses a member's new sessions past the member's rate, whichever of their tokens opens them", async () => {
    // The member opened 3 in the test above: 2 more are allowed, over any of their tokens.
    const [first, second] = [await ctx.newToken("member-a"), await ctx.newToken("member-b")];
    expect((await initialize(first)).status).toBe(200);
    expect((await initialize(second, other.base)).status).toBe(200);
    const refused = await initialize(first);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: -32029,
      message: expect.stringMatching(/^Too many new MCP sessions for you in this team \(at most 5 a minute\)/),
      data: { limit: "member", max: 5 },
    });
  });
});

describe("markers of sessions closed past a limit", () => {
  it("are written only when a session is closed, and live a few minutes, not the idle TTL", async () => {
    // A member of their own, whose rate the tests above did not use up.
    const bob = await makeUser(ctx.db, { name: "bob" });
    await ctx.db.membership.create({
      data: { id: `mem_${bob.id}`, teamId: ctx.team.id, userId: bob.id, role: "member" },
    });
    const token = (await makeAccessToken(ctx.db, { userId: bob.id, teamId: ctx.team.id, name: "markers" })).token;
    const before = new Set(await markers());

    await openRawSession(ctx.base, token);
    await openRawSession(ctx.base, token);
    // Two sessions, within the limit of 2: nothing closed, nothing written.
    expect((await markers()).filter((k) => !before.has(k))).toEqual([]);

    await openRawSession(ctx.base, token);
    const written = (await markers()).filter((k) => !before.has(k));
    expect(written).toHaveLength(1);
    const ttl = await redis().ttl(written[0]!);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(CLOSED_MARKER_TTL_SECONDS);
    expect(env().MCP_SESSION_IDLE_TTL_SECONDS).toBeGreaterThan(CLOSED_MARKER_TTL_SECONDS);
  });
});
