import { describe, expect, it } from "vitest";
import { redis } from "@switchboard/runtime/redis";
import { env } from "@switchboard/runtime/env";
import { redisKeys } from "@switchboard/core/contracts";
import { openRawSession, sessionRequest, routeTeamForFile } from "./support/route-team";

// Read once by env() on first use, which is after this (nothing parses the environment at import).
process.env.MCP_SESSION_IDLE_TTL_SECONDS = "2";

const ctx = routeTeamForFile();

const ping = (token: string, sessionId: string) => sessionRequest<unknown>(ctx.base, token, sessionId, "ping");

describe("MCP session expiry", () => {
  it("refreshes a session's record when it is used and forgets it once it sits idle past MCP_SESSION_IDLE_TTL_SECONDS", async () => {
    const token = await ctx.newToken("expiry");
    const id = await openRawSession(ctx.base, token);
    const record = redisKeys.mcpSession(env().REDIS_PREFIX, { teamId: ctx.team.id, userId: ctx.alice.id }, id);
    expect(await redis().pttl(record)).toBeGreaterThan(1_500);

    // Idle for a while: the TTL runs down; a request puts it back up.
    await expect.poll(() => redis().pttl(record), { timeout: 10_000, interval: 50 }).toBeLessThan(1_500);
    expect((await ping(token, id)).status).toBe(200);
    expect(await redis().pttl(record)).toBeGreaterThan(1_500);

    // Idle past the TTL: the record is gone, and the process holding the session in memory lets it go too.
    await expect.poll(() => redis().exists(record), { timeout: 10_000, interval: 100 }).toBe(0);
    const expired = await ping(token, id);
    expect(expired.status).toBe(404);
    expect(expired.body.error?.message).toMatch(/Session not found; initialize a new session/);
  });
});
