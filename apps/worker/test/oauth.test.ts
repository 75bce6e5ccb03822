import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finishAuthorization, startAuthorization } from "@switchboard/core/oauth";
import { startOAuthMcpServer, type OAuthMcpServer } from "@switchboard/core/testing/oauth-mcp-server";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { getCipher } from "@switchboard/db/crypto";
import { listToolNames } from "@switchboard/db/queries/catalogue";
import { createInstance } from "@switchboard/db/queries/installation";
import { installationOAuthClients, loadOAuthTokens, storeOAuthTokens } from "@switchboard/db/queries/upstream-oauth";
import { makeInstallation } from "./support/fixtures";
import { createHarness, JOB_NAMES, jobIds, type Harness } from "./support/harness";

const db = getDb();
const REDIRECT = "http://127.0.0.1:3000/api/oauth/callback";
let h: Harness;
let server: OAuthMcpServer;

beforeAll(async () => {
  server = await startOAuthMcpServer();
  h = await createHarness("oauth");
});
afterAll(async () => {
  await h?.close();
  await server?.close();
  await disconnectDb();
});

/** An OAuth-protected installation with instances for the owner and one member, as the worker left them. */
async function installed(status: "provisioning" | "requires_reauth" = "requires_reauth") {
  const setup = await makeInstallation(db, { url: server.mcpUrl, members: 1 });
  await db.serverTemplate.update({ where: { id: setup.template.id }, data: { oauth: true } });
  const instances = [];
  for (const user of setup.users) {
    instances.push(
      (await createInstance(db, { installationId: setup.installation.id, userId: user.id, status, at: new Date() }))!,
    );
  }
  return { ...setup, a: instances[0]!, b: instances[1]! };
}

/**
 * What the console does for a member: start, approve at the authorization server (auto-approving), exchange
 * the code, store the tokens, and queue what the web producer queues (reconnect + the refresh loop).
 */
async function authorize(instance: { id: string; userId: string; installationId: string }) {
  const clients = installationOAuthClients(db, getCipher(), instance.installationId);
  const started = await startAuthorization({ serverUrl: server.mcpUrl, clients, redirectUrl: REDIRECT });
  const back = new URL((await fetch(started.authorizationUrl, { redirect: "manual" })).headers.get("location")!);
  const tokens = await finishAuthorization({
    serverUrl: server.mcpUrl,
    clients,
    redirectUrl: REDIRECT,
    code: back.searchParams.get("code")!,
    codeVerifier: started.codeVerifier,
  });
  await storeOAuthTokens(db, getCipher(), { instanceId: instance.id, userId: instance.userId, tokens });
  await h.add(JOB_NAMES.oauthAuthorized, { instanceId: instance.id });
  const loop = await h.queue.getJob(jobIds.oauthRefresh(instance.id));
  if (loop && (await loop.isDelayed())) await loop.promote();
  else if (!loop) {
    await h.add(
      JOB_NAMES.oauthRefresh,
      { instanceId: instance.id, reason: "scheduled" },
      { jobId: jobIds.oauthRefresh(instance.id), removeOnComplete: true, removeOnFail: true },
    );
  }
  return tokens;
}

const statusOf = async (id: string) => (await db.instance.findUniqueOrThrow({ where: { id } })).status;
const accessTokenOf = async (id: string) => (await loadOAuthTokens(db, getCipher(), id))?.accessToken;

describe("OAuth instances in the worker", () => {
  it("asks the member to connect when an OAuth server is reached without tokens", async () => {
    server.authServer.accessTokenTtlMs = 3_600_000;
    const { a } = await installed("provisioning");
    await h.add(JOB_NAMES.discover, { instanceId: a.id, reason: "provisioned" });
    await expect.poll(() => statusOf(a.id), { timeout: 15_000 }).toBe("requires_reauth");
  });

  it("brings an authorized instance online live and refreshes its token before expiry without dropping it", async () => {
    server.authServer.accessTokenTtlMs = 2_000;
    const { a } = await installed();
    const first = await authorize(a);
    await expect.poll(() => statusOf(a.id), { timeout: 15_000 }).toBe("online");
    const walk = ["requires_reauth", "connecting", "discovering_tools", "syncing_tools", "online"];
    expect(await h.statusesOf(a.id)).toEqual(walk);
    await expect
      .poll(
        () =>
          h.live
            .filter((e) => e.instanceId === a.id && e.type === "status_changed")
            .map((e) => (e.payload as { to: string }).to),
        { timeout: 5_000 },
      )
      .toEqual(["connecting", "discovering_tools", "syncing_tools", "online"]);

    // The loop refreshes ahead of expiry, more than once, and the first token does run out meanwhile.
    await expect.poll(() => server.authServer.stats.refreshes, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    await expect
      .poll(
        () =>
          server.authServer.verifyAccessToken(first.accessToken).then(
            () => "valid",
            () => "expired",
          ),
        { timeout: 15_000 },
      )
      .toBe("expired");
    const connection = await h.app.deps.connections.get(a.id);
    const result = await connection.callTool({ name: "echo", arguments: { text: "no interruption" } });
    expect(result.content).toEqual([{ type: "text", text: "no interruption" }]);
    expect(await accessTokenOf(a.id)).not.toBe(first.accessToken);
    expect(await statusOf(a.id)).toBe("online");
    expect(await h.statusesOf(a.id)).toEqual(walk);
    // Tokens never travel in events.
    const published = JSON.stringify(h.live.filter((e) => e.instanceId === a.id));
    expect(published).not.toContain(first.accessToken);
    expect(published).not.toContain(first.refreshToken!);
  });

  it("moves only the member whose refresh token was revoked to requires_reauth; the other member stays online", async () => {
    server.authServer.accessTokenTtlMs = 2_000;
    const { a, b } = await installed();
    await authorize(a);
    await authorize(b);
    await expect
      .poll(() => Promise.all([statusOf(a.id), statusOf(b.id)]), { timeout: 15_000 })
      .toEqual(["online", "online"]);
    const toolsBefore = await listToolNames(db, a.id);

    const stored = await loadOAuthTokens(db, getCipher(), a.id);
    server.authServer.revoke(stored!.refreshToken!);
    await expect.poll(() => statusOf(a.id), { timeout: 15_000 }).toBe("requires_reauth");
    const row = await db.instance.findUniqueOrThrow({ where: { id: a.id } });
    expect(row.statusMessage).toMatch(/re-authenticate/);
    expect(h.live).toContainEqual(expect.objectContaining({ instanceId: a.id, type: "catalogue_changed" }));

    // B keeps being refreshed and stays online.
    const bToken = await accessTokenOf(b.id);
    await expect.poll(() => accessTokenOf(b.id), { timeout: 15_000 }).not.toBe(bToken);
    expect(await statusOf(b.id)).toBe("online");
    const bConnection = await h.app.deps.connections.get(b.id);
    expect((await bConnection.callTool({ name: "whoami", arguments: {} })).content).toHaveLength(1);

    // Re-authenticate: back online with the same tools.
    await authorize(a);
    await expect.poll(() => statusOf(a.id), { timeout: 15_000 }).toBe("online");
    expect(await listToolNames(db, a.id)).toEqual(toolsBefore);
    expect((await h.statusesOf(a.id)).slice(-5)).toEqual([
      "requires_reauth",
      "connecting",
      "discovering_tools",
      "syncing_tools",
      "online",
    ]);
  });

  it("refreshes on a 401 and retries, so a call made with an expired token still succeeds", async () => {
    server.authServer.accessTokenTtlMs = 3_600_000;
    const { a } = await installed();
    const first = await authorize(a);
    await expect.poll(() => statusOf(a.id), { timeout: 15_000 }).toBe("online");
    // Count this installation's client only: an earlier test's instances may still be on their refresh loops.
    const { clientId } = await server.authServer.verifyAccessToken(first.accessToken);
    const refreshesOf = () => server.authServer.refreshesByClient.get(clientId) ?? 0;
    const refreshes = refreshesOf();

    server.authServer.expire(first.accessToken);
    const connection = await h.app.deps.connections.get(a.id);
    const result = await connection.callTool({ name: "echo", arguments: { text: "after 401" } });
    expect(result.content).toEqual([{ type: "text", text: "after 401" }]);
    expect(refreshesOf()).toBe(refreshes + 1);
    expect(await accessTokenOf(a.id)).not.toBe(first.accessToken);
    expect(await statusOf(a.id)).toBe("online");
  });

  it("answers the proxy's 401 report with a refresh, and with requires_reauth only when the grant is gone", async () => {
    server.authServer.accessTokenTtlMs = 3_600_000;
    const { a, b } = await installed();
    const first = await authorize(a);
    await authorize(b);
    await expect
      .poll(() => Promise.all([statusOf(a.id), statusOf(b.id)]), { timeout: 15_000 })
      .toEqual(["online", "online"]);
    // Age the stored tokens past the "just refreshed" window instead of waiting.
    await db.$executeRaw`UPDATE upstream_oauth_tokens SET "updatedAt" = now() - interval '1 minute' WHERE "instanceId" = ${a.id}`;

    await h.add(JOB_NAMES.oauthRefresh, { instanceId: a.id, reason: "unauthorized" });
    await expect.poll(() => accessTokenOf(a.id), { timeout: 15_000 }).not.toBe(first.accessToken);
    expect(await statusOf(a.id)).toBe("online");

    await db.$executeRaw`UPDATE upstream_oauth_tokens SET "updatedAt" = now() - interval '1 minute' WHERE "instanceId" = ${a.id}`;
    server.authServer.revoke((await loadOAuthTokens(db, getCipher(), a.id))!.refreshToken!);
    await h.add(JOB_NAMES.oauthRefresh, { instanceId: a.id, reason: "unauthorized" });
    await expect.poll(() => statusOf(a.id), { timeout: 15_000 }).toBe("requires_reauth");
    expect(await statusOf(b.id)).toBe("online");
  });
});
