import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOAuthMcpServer, type OAuthMcpServer } from "@switchboard/core/testing/oauth-mcp-server";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { getCipher } from "@switchboard/db/crypto";
import { loadOAuthTokens } from "@switchboard/db/queries/upstream-oauth";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { GET as callback } from "~/app/api/oauth/callback/route";
import { closeJobs } from "@switchboard/runtime/jobs";
import { seedHttpTemplate, strangerWithTeam, teamWithMember } from "./support/console";

let server: OAuthMcpServer;

beforeAll(async () => {
  server = await startOAuthMcpServer();
});

afterAll(async () => {
  await server.close();
  await closeJobs();
  await disconnectDb();
});

const suffix = () => Math.random().toString(36).slice(2, 8);
const REDIRECT = "http://localhost:3000/api/oauth/callback";
const SECRET = "pre-registered-secret-7777";

async function oauthTemplate(teamId: string) {
  const template = await seedTemplate(getDb(), {
    teamId,
    slug: `oauth-${suffix()}`,
    name: "OAuth demo",
    transport: "streamable_http",
    url: server.mcpUrl,
  });
  await getDb().serverTemplate.update({ where: { id: template.id }, data: { oauth: true } });
  return { ...template, oauth: true };
}

/** A team with an owner and a member, and an OAuth-protected remote server installed (instances created). */
async function installed() {
  const people = await teamWithMember();
  const installation = await seedInstallation(getDb(), { template: await oauthTemplate(people.team.id) });
  const instanceOf = (userId: string) =>
    getDb().instance.findFirstOrThrow({ where: { installationId: installation.id, userId } });
  const row = () => getDb().installation.findUniqueOrThrow({ where: { id: installation.id } });
  return { ...people, installation, instanceOf, row };
}

const clientIdOf = (authorizationUrl: string) => new URL(authorizationUrl).searchParams.get("client_id");

describe("installation.setOAuthClient", () => {
  it("stores the secret encrypted and answers only the client id and whether a secret is set", async () => {
    const { admin, team, installation, row } = await installed();
    const answer = await admin.caller.installation.setOAuthClient({
      teamId: team.id,
      installationId: installation.id,
      clientId: "my-client",
      clientSecret: SECRET,
    });
    expect(answer).toEqual({ clientId: "my-client", secretSet: true });
    expect(JSON.stringify(answer)).not.toContain(SECRET);
    await expect(
      admin.caller.installation.oauthClient({ teamId: team.id, installationId: installation.id }),
    ).resolves.toEqual({ clientId: "my-client", secretSet: true });

    const stored = await row();
    expect(stored.oauthClientId).toBe("my-client");
    expect(stored.oauthClientSecretEnc).toMatch(/^v1\./);
    expect(stored.oauthClientSecretEnc).not.toContain(SECRET);
    expect(getCipher().decrypt(stored.oauthClientSecretEnc!)).toBe(SECRET);
    const view = await admin.caller.installation.get({ teamId: team.id, installationId: installation.id });
    expect(JSON.stringify(view)).not.toContain(SECRET);
  });

  it("lets only admins read or change the client, and answers NOT_FOUND for another team's installation", async () => {
    const { member, team, installation, row } = await installed();
    await expect(
      member.caller.installation.oauthClient({ teamId: team.id, installationId: installation.id }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(
      member.caller.installation.setOAuthClient({ teamId: team.id, installationId: installation.id, clientId: "x" }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });

    const { stranger, team: otherTeam } = await strangerWithTeam();
    await expect(
      stranger.caller.installation.setOAuthClient({
        teamId: otherTeam.id,
        installationId: installation.id,
        clientId: "x",
      }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(
      stranger.caller.installation.oauthClient({ teamId: otherTeam.id, installationId: installation.id }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(
      stranger.caller.installation.setOAuthClient({ teamId: team.id, installationId: installation.id, clientId: "x" }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await row()).oauthClientId).toBeNull();
  });

  it("keeps the stored secret when left empty for the same client id, and drops it for a new client id", async () => {
    const { admin, team, installation, row } = await installed();
    const input = { teamId: team.id, installationId: installation.id };
    await admin.caller.installation.setOAuthClient({ ...input, clientId: "first", clientSecret: SECRET });
    const sealed = (await row()).oauthClientSecretEnc;

    await expect(
      admin.caller.installation.setOAuthClient({ ...input, clientId: "first", clientSecret: "" }),
    ).resolves.toEqual({ clientId: "first", secretSet: true });
    expect((await row()).oauthClientSecretEnc).toBe(sealed);
    await expect(admin.caller.installation.setOAuthClient({ ...input, clientId: "second" })).resolves.toEqual({
      clientId: "second",
      secretSet: false,
    });
    expect((await row()).oauthClientSecretEnc).toBeNull();
  });

  it("drops the stored dynamic registration when the client changes, and later flows authorize with the pre-registered client", async () => {
    const { admin, member, team, installation, instanceOf, row } = await installed();
    const dynamic = clientIdOf(
      (await member.caller.oauth.start({ teamId: team.id, instanceId: (await instanceOf(member.userId)).id }))
        .authorizationUrl,
    );
    expect((await row()).oauthClientInfoEnc).toMatch(/^v1\./);

    const pre = server.authServer.preRegister({ redirectUris: [REDIRECT], secret: SECRET });
    await admin.caller.installation.setOAuthClient({
      teamId: team.id,
      installationId: installation.id,
      clientId: pre.client_id,
      clientSecret: SECRET,
    });
    expect((await row()).oauthClientInfoEnc).toBeNull();

    const registrations = server.authServer.stats.registrations;
    const instance = await instanceOf(member.userId);
    const { authorizationUrl } = await member.caller.oauth.start({ teamId: team.id, instanceId: instance.id });
    expect(clientIdOf(authorizationUrl)).toBe(pre.client_id);
    expect(clientIdOf(authorizationUrl)).not.toBe(dynamic);
    expect(server.authServer.stats.registrations).toBe(registrations);

    // The code is exchanged with the pre-registered client's secret, and the tokens belong to that client.
    const approved = await fetch(authorizationUrl, { redirect: "manual" });
    const back = new URL(approved.headers.get("location")!);
    const landed = await callback(
      new Request(`http://localhost:3000/api/oauth/callback${back.search}`, { headers: member.headers }),
    );
    expect(new URL(landed.headers.get("location")!).searchParams.get("oauth")).toBe("connected");
    const tokens = await loadOAuthTokens(getDb(), getCipher(), instance.id);
    await expect(server.authServer.verifyAccessToken(tokens!.accessToken)).resolves.toMatchObject({
      clientId: pre.client_id,
    });
    expect((await row()).oauthClientInfoEnc).toBeNull();
  });

  it("clears the client so the next flow registers one dynamically again", async () => {
    const { admin, member, team, installation, instanceOf, row } = await installed();
    const input = { teamId: team.id, installationId: installation.id };
    await admin.caller.installation.setOAuthClient({ ...input, clientId: "gone-soon", clientSecret: SECRET });
    await expect(admin.caller.installation.setOAuthClient({ ...input, clientId: null })).resolves.toEqual({
      clientId: null,
      secretSet: false,
    });
    expect(await row()).toMatchObject({ oauthClientId: null, oauthClientSecretEnc: null, oauthClientInfoEnc: null });

    const registrations = server.authServer.stats.registrations;
    const { authorizationUrl } = await member.caller.oauth.start({
      teamId: team.id,
      instanceId: (await instanceOf(member.userId)).id,
    });
    expect(clientIdOf(authorizationUrl)).not.toBe("gone-soon");
    expect(server.authServer.stats.registrations).toBe(registrations + 1);
  });

  it("refuses a client for a server that does not use OAuth", async () => {
    const { admin, team } = await teamWithMember();
    const installation = await seedInstallation(getDb(), {
      template: await seedHttpTemplate(team.id),
      teamValues: { "X-Team-Key": "k" },
    });
    await expect(
      admin.caller.installation.setOAuthClient({ teamId: team.id, installationId: installation.id, clientId: "x" }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/does not use OAuth/),
    });
  });
});

describe("installation.create with an OAuth client", () => {
  it("installs an OAuth template with the admin's pre-registered client, secret encrypted and not in the answer", async () => {
    const { admin, team } = await teamWithMember();
    const template = await oauthTemplate(team.id);
    const created = await admin.caller.installation.create({
      teamId: team.id,
      templateId: template.id,
      slug: "secure",
      name: "Secure",
      oauthClient: { clientId: "wizard-client", clientSecret: SECRET },
    });
    expect(JSON.stringify(created)).not.toContain(SECRET);
    await expect(
      admin.caller.installation.oauthClient({ teamId: team.id, installationId: created.id }),
    ).resolves.toEqual({ clientId: "wizard-client", secretSet: true });
  });

  it("refuses an OAuth client for a template that does not use OAuth", async () => {
    const { admin, team } = await teamWithMember();
    const template = await seedHttpTemplate(team.id);
    await expect(
      admin.caller.installation.create({
        teamId: team.id,
        templateId: template.id,
        slug: "plain",
        name: "Plain",
        values: { "X-Team-Key": "k" },
        oauthClient: { clientId: "x" },
      }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await getDb().installation.count({ where: { teamId: team.id } })).toBe(0);
  });
});

describe("instance.mineOf", () => {
  it("answers the caller's own instance of an installation, and null before the worker has created it", async () => {
    const { admin, member, team, installation, instanceOf } = await installed();
    await expect(member.caller.instance.mineOf({ teamId: team.id, installationId: installation.id })).resolves.toEqual({
      instance: { id: (await instanceOf(member.userId)).id, status: expect.any(String) },
    });
    await expect(
      admin.caller.instance.mineOf({ teamId: team.id, installationId: installation.id }),
    ).resolves.toMatchObject({ instance: { id: (await instanceOf(admin.userId)).id } });

    const bare = await getDb().installation.create({
      data: {
        teamId: team.id,
        templateId: installation.templateId,
        slug: `bare-${suffix()}`,
        name: "Bare",
        createdById: admin.userId,
      },
    });
    await expect(admin.caller.instance.mineOf({ teamId: team.id, installationId: bare.id })).resolves.toEqual({
      instance: null,
    });
    const { stranger, team: otherTeam } = await strangerWithTeam();
    await expect(
      stranger.caller.instance.mineOf({ teamId: otherTeam.id, installationId: installation.id }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("oauth.redirectUri", () => {
  it("answers APP_URL's callback, the redirect URI an admin registers at the provider", async () => {
    const { member, team } = await teamWithMember();
    await expect(member.caller.oauth.redirectUri({ teamId: team.id })).resolves.toEqual({ redirectUri: REDIRECT });
  });
});
