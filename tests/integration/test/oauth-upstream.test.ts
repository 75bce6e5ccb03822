import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JOB_NAMES } from "@switchboard/core/contracts";
import { startOAuthMcpServer, type OAuthMcpServer } from "@switchboard/core/testing/oauth-mcp-server";
import { getDb } from "@switchboard/db/client";
import { getCipher } from "@switchboard/db/crypto";
import { loadOAuthTokens, storeOAuthTokens } from "@switchboard/db/queries/upstream-oauth";
import { liveEventsReady } from "@switchboard/runtime/live-events";
import { workerJobs } from "../../../apps/gateway/src/mcp/worker-jobs";
import { upstreamPool } from "../../../apps/gateway/src/mcp/upstreams";
import { currentOAuthTokens, forgetOAuthTokens } from "../../../apps/gateway/src/oauth/upstream-auth";
import { queuedJobs } from "../../../apps/web/test/support/console";
import { approve, arrive, oauthInstalled } from "../../../apps/web/test/support/oauth";

let server: OAuthMcpServer;

beforeAll(async () => {
  server = await startOAuthMcpServer();
});

afterAll(async () => {
  await upstreamPool().closeAll();
  await server.close();
});

/** The member connects the instance in the console: the OAuth flow through to the console's callback. */
async function connectInConsole({ member, team }: Awaited<ReturnType<typeof oauthInstalled>>, instanceId: string) {
  await arrive(
    await approve((await member.caller.oauth.start({ teamId: team.id, instanceId })).authorizationUrl),
    member.headers,
  );
}

describe("the MCP route's upstream hook", () => {
  it("connects to the member's instance with their access token", async () => {
    const installed = await oauthInstalled(server);
    const instance = await installed.instanceOf(installed.member.userId);
    await connectInConsole(installed, instance.id);
    const tokens = await loadOAuthTokens(getDb(), getCipher(), instance.id);

    const connection = await upstreamPool().get(instance.id);
    const { tools } = await connection.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["echo", "whoami"]);
    expect(server.acceptedTokens).toContain(tokens!.accessToken);
    await upstreamPool().evict(instance.id);
  });

  it("turns a 401 on an OAuth instance into a refresh request for the worker instead of requires_reauth", async () => {
    const installed = await oauthInstalled(server);
    const instance = await installed.instanceOf(installed.member.userId);
    await connectInConsole(installed, instance.id);
    forgetOAuthTokens(instance.id);

    await workerJobs().reportCallFailed(instance.id, "requires_reauth", "Authentication failed (HTTP 401)");
    expect(await queuedJobs(JOB_NAMES.oauthRefresh)).toContainEqual({
      instanceId: instance.id,
      reason: "unauthorized",
    });
    expect((await queuedJobs(JOB_NAMES.callFailed)).filter((j) => j.instanceId === instance.id)).toEqual([]);
  });

  it("keeps its cached tokens through a database change alone, and drops them when the member connects again in the console", async () => {
    const installed = await oauthInstalled(server);
    const instance = await installed.instanceOf(installed.member.userId);
    await connectInConsole(installed, instance.id);
    await liveEventsReady();
    const first = (await currentOAuthTokens(instance.id))!.accessToken;

    // Written behind the gateway's back, nothing announced: the cached copy stands (what the cache is for).
    await storeOAuthTokens(getDb(), getCipher(), {
      instanceId: instance.id,
      userId: installed.member.userId,
      tokens: { accessToken: "written-directly", tokenType: "Bearer" },
    });
    expect((await currentOAuthTokens(instance.id))!.accessToken).toBe(first);

    // The console's callback stores new tokens and announces them through Redis: the gateway re-reads them.
    await connectInConsole(installed, instance.id);
    const stored = (await loadOAuthTokens(getDb(), getCipher(), instance.id))!.accessToken;
    expect(stored).not.toBe(first);
    await expect
      .poll(async () => (await currentOAuthTokens(instance.id))!.accessToken, { timeout: 10_000 })
      .toBe(stored);
  });
});
