import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JOB_NAMES } from "@switchboard/core/contracts";
import { HttpFixture } from "@switchboard/core/testing/http-fixture";
import { startOAuthMcpServer, type OAuthMcpServer } from "@switchboard/core/testing/oauth-mcp-server";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { getCipher } from "@switchboard/db/crypto";
import { loadOAuthTokens } from "@switchboard/db/queries/upstream-oauth";
import { closeJobs } from "@switchboard/runtime/jobs";
import { liveEventsReady, onOAuthTokensChanged } from "@switchboard/runtime/live-events";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { queuedJobs, strangerWithTeam, teamWithMember } from "./support/console";
import { approve, arrive, oauthInstalled } from "./support/oauth";

let server: OAuthMcpServer;

beforeAll(async () => {
  server = await startOAuthMcpServer();
});

afterAll(async () => {
  await server.close();
  await closeJobs();
  await disconnectDb();
});

describe("oauth.start", () => {
  it("answers the authorization server URL for the member's own instance and keeps the verifier encrypted for 10 minutes", async () => {
    const { member, team, instanceOf } = await oauthInstalled(server);
    const instance = await instanceOf(member.userId);
    const before = Date.now();
    const { authorizationUrl, expiresAt } = await member.caller.oauth.start({
      teamId: team.id,
      instanceId: instance.id,
    });

    const url = new URL(authorizationUrl);
    expect(url.origin).toBe(new URL(server.issuerUrl).origin);
    expect(url.searchParams.get("redirect_uri")).toBe("http://localhost:3000/api/oauth/callback");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("resource")).toBe(server.mcpUrl);
    const flow = await getDb().oAuthPendingFlow.findUniqueOrThrow({ where: { state: url.searchParams.get("state")! } });
    // The issuer is kept: the callback sends the code to that authorization server or nowhere.
    expect(flow).toMatchObject({
      instanceId: instance.id,
      userId: member.userId,
      usedAt: null,
      issuer: server.issuerUrl,
    });
    expect(flow.codeVerifierEnc).toMatch(/^v1\./);
    expect(expiresAt.getTime() - before).toBeGreaterThanOrEqual(10 * 60_000 - 1_000);
    expect(expiresAt.getTime() - before).toBeLessThanOrEqual(10 * 60_000 + 60_000);
  });

  it("answers at once that a server without OAuth metadata does not offer OAuth, and keeps no pending flow", async () => {
    const plain = new HttpFixture(() => ({
      handle: (_req, res) => void res.writeHead(404).end(),
      close: async () => {},
    }));
    await plain.start();
    try {
      const people = await teamWithMember();
      const template = await seedTemplate(getDb(), {
        teamId: people.team.id,
        slug: `plain-${Math.random().toString(36).slice(2, 8)}`,
        name: "No OAuth here",
        transport: "streamable_http",
        url: plain.url("/mcp"),
      });
      await getDb().serverTemplate.update({ where: { id: template.id }, data: { oauth: true } });
      const installation = await seedInstallation(getDb(), { template });
      const instance = await getDb().instance.findFirstOrThrow({
        where: { installationId: installation.id, userId: people.member.userId },
      });
      const error = await people.member.caller.oauth
        .start({ teamId: people.team.id, instanceId: instance.id })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: "BAD_REQUEST",
        message:
          "No OAuth here does not offer OAuth: it publishes no OAuth metadata. An admin can check its URL, or use an API key setting instead.",
      });
      expect(await getDb().oAuthPendingFlow.count({ where: { instanceId: instance.id } })).toBe(0);
    } finally {
      await plain.stop();
    }
  });

  it("refuses a teammate's instance, even to an admin, and another team's instance, as NOT_FOUND", async () => {
    const { admin, member, team, instanceOf } = await oauthInstalled(server);
    const membersInstance = await instanceOf(member.userId);
    await expect(admin.caller.oauth.start({ teamId: team.id, instanceId: membersInstance.id })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    const { stranger, team: otherTeam } = await strangerWithTeam();
    await expect(
      stranger.caller.oauth.start({ teamId: otherTeam.id, instanceId: membersInstance.id }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(
      stranger.caller.oauth.start({ teamId: team.id, instanceId: membersInstance.id }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("registers one OAuth client for the installation, shared by every member, and leaves its configuration alone", async () => {
    const { admin, member, team, installation, instanceOf } = await oauthInstalled(server);
    const registrations = server.authServer.stats.registrations;
    const a = new URL(
      (await admin.caller.oauth.start({ teamId: team.id, instanceId: (await instanceOf(admin.userId)).id }))
        .authorizationUrl,
    );
    const m = new URL(
      (await member.caller.oauth.start({ teamId: team.id, instanceId: (await instanceOf(member.userId)).id }))
        .authorizationUrl,
    );
    expect(a.searchParams.get("client_id")).toBe(m.searchParams.get("client_id"));
    expect(server.authServer.stats.registrations - registrations).toBe(1);
    const row = await getDb().installation.findUniqueOrThrow({
      where: { id: installation.id },
      include: { values: true },
    });
    expect(row.oauthClientInfoEnc).toMatch(/^v1\./);
    expect(row.values).toEqual([]);
  });
});

describe("GET /api/oauth/callback", () => {
  it("tells the gateway processes to drop their cached tokens for the instance once new ones are stored", async () => {
    const { member, team, instanceOf } = await oauthInstalled(server);
    const instance = await instanceOf(member.userId);
    const announced: string[] = [];
    const stop = onOAuthTokensChanged((instanceId) => announced.push(instanceId));
    await liveEventsReady();
    try {
      await arrive(
        await approve((await member.caller.oauth.start({ teamId: team.id, instanceId: instance.id })).authorizationUrl),
        member.headers,
      );
      await expect.poll(() => announced).toContain(instance.id);
    } finally {
      stop();
    }
  });

  it("exchanges the code, stores the member's tokens encrypted, asks the worker to reconnect and redirects to My servers", async () => {
    const { member, team, instanceOf } = await oauthInstalled(server);
    const instance = await instanceOf(member.userId);
    const { authorizationUrl } = await member.caller.oauth.start({ teamId: team.id, instanceId: instance.id });
    const back = await approve(authorizationUrl);
    const landed = await arrive(back, member.headers);

    expect(landed.pathname).toBe(`/t/${team.slug}/my-servers`);
    expect(landed.searchParams.get("oauth")).toBe("connected");
    expect(landed.searchParams.get("instance")).toBe(instance.id);
    expect(landed.href).not.toContain(back.searchParams.get("code")!);

    const row = await getDb().upstreamOAuthToken.findUniqueOrThrow({ where: { instanceId: instance.id } });
    expect(row.userId).toBe(member.userId);
    expect(row.accessTokenEnc).toMatch(/^v1\./);
    expect(row.refreshTokenEnc).toMatch(/^v1\./);
    const tokens = await loadOAuthTokens(getDb(), getCipher(), instance.id);
    await expect(server.authServer.verifyAccessToken(tokens!.accessToken)).resolves.toMatchObject({
      resource: new URL(server.mcpUrl),
    });

    expect(await queuedJobs(JOB_NAMES.oauthAuthorized)).toContainEqual({ instanceId: instance.id });
    expect(await queuedJobs(JOB_NAMES.oauthRefresh)).toContainEqual({ instanceId: instance.id, reason: "scheduled" });
  });

  it("refuses a replayed state and keeps the tokens of the first use", async () => {
    const { member, team, instanceOf } = await oauthInstalled(server);
    const instance = await instanceOf(member.userId);
    const back = await approve(
      (await member.caller.oauth.start({ teamId: team.id, instanceId: instance.id })).authorizationUrl,
    );
    expect((await arrive(back, member.headers)).searchParams.get("oauth")).toBe("connected");
    const first = await getDb().upstreamOAuthToken.findUniqueOrThrow({ where: { instanceId: instance.id } });

    const replay = await arrive(back, member.headers);
    expect(replay.searchParams.get("oauth")).toBe("error");
    expect(replay.searchParams.get("message")).toMatch(/already used/);
    const after = await getDb().upstreamOAuthToken.findUniqueOrThrow({ where: { instanceId: instance.id } });
    expect(after.accessTokenEnc).toBe(first.accessTokenEnc);
  });

  it("refuses an expired state without exchanging its code", async () => {
    const { member, team, instanceOf } = await oauthInstalled(server);
    const instance = await instanceOf(member.userId);
    const back = await approve(
      (await member.caller.oauth.start({ teamId: team.id, instanceId: instance.id })).authorizationUrl,
    );
    await getDb().oAuthPendingFlow.update({
      where: { state: back.searchParams.get("state")! },
      data: { expiresAt: new Date(Date.now() - 1_000) },
    });
    const exchanges = server.authServer.stats.codeExchanges;

    const landed = await arrive(back, member.headers);
    expect(landed.searchParams.get("oauth")).toBe("error");
    expect(landed.searchParams.get("message")).toMatch(/expired/);
    expect(server.authServer.stats.codeExchanges).toBe(exchanges);
    expect(await getDb().upstreamOAuthToken.findUnique({ where: { instanceId: instance.id } })).toBeNull();
  });

  it("refuses a state presented by another signed-in account and leaves it usable by its owner", async () => {
    const { admin, member, team, instanceOf } = await oauthInstalled(server);
    const instance = await instanceOf(member.userId);
    const back = await approve(
      (await member.caller.oauth.start({ teamId: team.id, instanceId: instance.id })).authorizationUrl,
    );

    const stolen = await arrive(back, admin.headers);
    expect(stolen.searchParams.get("oauth")).toBe("error");
    expect(stolen.searchParams.get("message")).toMatch(/another account/);
    expect(await getDb().upstreamOAuthToken.findUnique({ where: { instanceId: instance.id } })).toBeNull();

    expect((await arrive(back, member.headers)).searchParams.get("oauth")).toBe("connected");
  });

  it("sends a signed-out browser to sign in and leaves the state unused", async () => {
    const { member, team, instanceOf } = await oauthInstalled(server);
    const instance = await instanceOf(member.userId);
    const back = await approve(
      (await member.caller.oauth.start({ teamId: team.id, instanceId: instance.id })).authorizationUrl,
    );
    const landed = await arrive(back, new Headers());
    expect(landed.pathname).toBe("/sign-in");
    const flow = await getDb().oAuthPendingFlow.findUniqueOrThrow({
      where: { state: back.searchParams.get("state")! },
    });
    expect(flow.usedAt).toBeNull();
  });

  it("reports a denied authorization readably and uses the state up", async () => {
    const { member, team, instanceOf } = await oauthInstalled(server);
    const instance = await instanceOf(member.userId);
    const { authorizationUrl } = await member.caller.oauth.start({ teamId: team.id, instanceId: instance.id });
    const state = new URL(authorizationUrl).searchParams.get("state")!;
    const denied = new URL(
      `http://localhost:3000/api/oauth/callback?${new URLSearchParams({ state, error: "access_denied", error_description: "The user said no" })}`,
    );
    const landed = await arrive(denied, member.headers);
    expect(landed.searchParams.get("message")).toMatch(/not granted \(access_denied: The user said no\)/);
    expect((await getDb().oAuthPendingFlow.findUniqueOrThrow({ where: { state } })).usedAt).not.toBeNull();
  });
});

describe("member removal", () => {
  it("deletes the removed member's upstream tokens and pending flows, and only theirs", async () => {
    const { admin, member, team, instanceOf } = await oauthInstalled(server);
    const mine = await instanceOf(member.userId);
    const admins = await instanceOf(admin.userId);
    await arrive(
      await approve((await member.caller.oauth.start({ teamId: team.id, instanceId: mine.id })).authorizationUrl),
      member.headers,
    );
    await arrive(
      await approve((await admin.caller.oauth.start({ teamId: team.id, instanceId: admins.id })).authorizationUrl),
      admin.headers,
    );
    await member.caller.oauth.start({ teamId: team.id, instanceId: mine.id }); // a pending flow too

    const membership = await getDb().membership.findFirstOrThrow({ where: { teamId: team.id, userId: member.userId } });
    await admin.caller.team.removeMember({ teamId: team.id, memberId: membership.id });

    expect(await getDb().upstreamOAuthToken.count({ where: { userId: member.userId } })).toBe(0);
    expect(await getDb().oAuthPendingFlow.count({ where: { userId: member.userId } })).toBe(0);
    expect(await getDb().upstreamOAuthToken.count({ where: { instanceId: admins.id } })).toBe(1);
  });
});
