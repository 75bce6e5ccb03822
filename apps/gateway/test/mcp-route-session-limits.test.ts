import { describe, expect, it } from "vitest";
import { closedSessionsChannel } from "@switchboard/runtime/live-events";
import { redis } from "@switchboard/runtime/redis";
import { forgetLocalSessions, liveSessionCount } from "../src/mcp/sessions";
import { authenticate } from "../src/auth/authenticate";
import { env } from "@switchboard/runtime/env";
import { redisKeys } from "@switchboard/core/contracts";
import { connectClient } from "./support/mcp";
import { openRawSession, sessionRequest, routeTeamForFile } from "./support/route-team";

// Read once by env() on first use, which is after this (nothing parses the environment at import).
process.env.MCP_MAX_SESSIONS_PER_TOKEN = "2";
process.env.MCP_MAX_SESSIONS_PER_MEMBER = "3";

const ctx = routeTeamForFile();

const list = (token: string, sessionId: string) =>
  sessionRequest<{ tools: { name: string }[] }>(ctx.base, token, sessionId, "tools/list");

const tokenSetSize = (tokenId: string) =>
  redis().zcard(redisKeys.mcpTokenSessions(env().REDIS_PREFIX, { teamId: ctx.team.id, userId: ctx.alice.id }, tokenId));

describe("MCP session limits", () => {
  it("closes a token's oldest session past the limit and tells its client why on its next request", async () => {
    const token = await ctx.newToken("limit");
    const a = await openRawSession(ctx.base, token);
    const b = await openRawSession(ctx.base, token);
    expect((await list(token, a)).status).toBe(200);
    const c = await openRawSession(ctx.base, token);

    const evicted = await list(token, a);
    expect(evicted.status).toBe(404);
    expect(evicted.body.error?.message).toMatch(
      /closed because too many sessions were open for this token \(at most 2\)/,
    );
    for (const kept of [b, c])
      expect((await list(token, kept)).body.result?.tools.map((t) => t.name)).toContain("my-demo-echo");

    // Another gateway process, which never held it in memory, says the same (the reason is in Redis).
    await forgetLocalSessions();
    expect((await list(token, a)).body.error?.message).toMatch(/too many sessions were open for this token/);
    expect((await list(token, b)).status).toBe(200);
    // Another token learns nothing about it.
    const stranger = await list(await ctx.newToken("stranger"), a);
    expect(stranger.status).toBe(404);
    expect(stranger.body.error?.message).toBe("Session not found; initialize a new session");
  });

  it("closes the member's oldest session when their tokens together pass the member limit", async () => {
    const first = await ctx.newToken("member-1");
    const second = await ctx.newToken("member-2");
    const oldest = await openRawSession(ctx.base, first);
    const others = [await openRawSession(ctx.base, first), await openRawSession(ctx.base, second)];
    // The member's other sessions from the test above count too; the limit is 3 over all of them.
    await openRawSession(ctx.base, second);

    const evicted = await list(first, oldest);
    expect(evicted.status).toBe(404);
    expect(evicted.body.error?.message).toMatch(/you had too many MCP sessions open in this team \(at most 3\)/);
    expect((await list(second, others[1]!)).status).toBe(200);
  });

  it("frees a slot when a client deletes its session", async () => {
    const token = await ctx.newToken("delete");
    const { tokenId } = (await authenticate({ db: ctx.db, bearer: token }))!;
    const { client, transport } = await connectClient(token);
    await client.listTools();
    expect(await tokenSetSize(tokenId)).toBe(1);
    await transport.terminateSession();
    await client.close();
    expect(await tokenSetSize(tokenId)).toBe(0);
  });

  it("drops the in-memory copy of a session another gateway process closed past a limit", async () => {
    const token = await ctx.newToken("pubsub");
    const id = await openRawSession(ctx.base, token);
    expect((await list(token, id)).status).toBe(200);
    const before = liveSessionCount();
    // What another process publishes after its save closed this session.
    await redis().publish(closedSessionsChannel(), JSON.stringify([id]));
    await expect.poll(() => liveSessionCount()).toBe(before - 1);
  });
});
