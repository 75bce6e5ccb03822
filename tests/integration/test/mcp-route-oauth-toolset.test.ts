import {
  startStreamableHttpServer,
  type StreamableHttpFixture,
} from "@switchboard/core/testing/streamable-http-server";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { createInstance } from "@switchboard/db/queries/installation";
import { env } from "@switchboard/runtime/env";
import { mcpResourceUrl } from "@switchboard/runtime/mcp-authorization";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { teamWithMember } from "../../../apps/web/test/support/console";
import { docsServer } from "./support/docs-server";
import { accessToken, initialize, registerOAuthClient } from "./support/mcp-client";
import {
  connectClient,
  discoverInto,
  installDiscovered,
  startRoute,
  teardownRoute,
} from "../../../apps/gateway/test/support/mcp";

/**
 * OAuth grants limited to a toolset: the member approves a client on the consent page (`mcpClient.approve`) with a
 * toolset, and the client's access tokens (signed by the console's authorization server, Better Auth's jwt plugin,
 * with the keys the route verifies against) reach only that toolset's tools at `/api/mcp`.
 */

let upstream: StreamableHttpFixture;

beforeAll(async () => {
  upstream = await startStreamableHttpServer(docsServer());
  await startRoute();
});

afterAll(async () => {
  await teardownRoute();
  await upstream?.stop();
  await disconnectDb();
});

async function setup() {
  const people = await teamWithMember();
  const { admin, member, team } = people;
  const slug = `docs-${Math.random().toString(36).slice(2, 8)}`;
  const { installation } = await installDiscovered({
    teamId: team.id,
    slug,
    name: "Docs",
    url: upstream.url("/mcp"),
    userIds: [admin.userId, member.userId],
  });
  const client = await registerOAuthClient("Toolset client");
  await admin.caller.mcpClient.setPolicy({ teamId: team.id, allowed: true });
  return { ...people, slug, installation, clientId: client.clientId };
}

const names = async (client: Awaited<ReturnType<typeof connectClient>>["client"]) =>
  (await client.listTools()).tools.map((t) => t.name).sort();

describe("OAuth grants limited to a toolset", () => {
  it("serves a client whose grant is limited to a toolset only that toolset's tools at /api/mcp, and refuses the others", async () => {
    const { member, team, slug, installation, clientId } = await setup();
    const { id: toolsetId } = await member.caller.governance.saveToolset({
      teamId: team.id,
      name: "reading",
      toolMode: "all",
      tools: [
        { installationId: installation.id, toolName: "read" },
        { installationId: installation.id, toolName: "search" },
      ],
    });

    // Unlimited first: the client sees every tool.
    await member.caller.mcpClient.approve({ teamId: team.id, clientId, mode: "all" });
    const everything = (await connectClient(await accessToken(member.userId, clientId))).client;
    expect(await names(everything)).toEqual([`${slug}-delete`, `${slug}-read`, `${slug}-search`]);
    await everything.close();

    // Signing in again with a toolset replaces the grant; a token issued under it sees only the selection.
    const { grantId } = await member.caller.mcpClient.approve({ teamId: team.id, clientId, mode: "all", toolsetId });
    expect(await getDb().personalAccessToken.findUniqueOrThrow({ where: { id: grantId } })).toMatchObject({
      kind: "oauth",
      toolsetId,
    });
    const limited = (await connectClient(await accessToken(member.userId, clientId))).client;
    expect(await names(limited)).toEqual([`${slug}-read`, `${slug}-search`]);
    expect(await limited.callTool({ name: `${slug}-read`, arguments: { id: "7" } })).toMatchObject({
      content: [{ type: "text", text: "doc 7" }],
    });
    await expect(limited.callTool({ name: `${slug}-delete`, arguments: { id: "7" } })).rejects.toThrow("Unknown tool");
    await limited.close();

    // The consent page remembers the choice, and the Connect page names the toolset.
    expect((await member.caller.mcpClient.consent({ clientId })).earlier).toMatchObject({ teamId: team.id, toolsetId });
    expect((await member.caller.mcpClient.list({ teamId: team.id })).find((c) => c.id === grantId)).toMatchObject({
      toolset: { id: toolsetId, name: "reading" },
    });
  });

  it("refuses to limit a grant to another member's toolset, or one of another team, as not found, and grants nothing", async () => {
    const { admin, member, team, installation, clientId } = await setup();
    const { id: adminsOwn } = await admin.caller.governance.saveToolset({
      teamId: team.id,
      name: "admins-own",
      toolMode: "all",
      tools: [{ installationId: installation.id, toolName: "read" }],
    });
    const other = await teamWithMember();
    const { id: elsewhere } = await other.member.caller.governance.saveToolset({
      teamId: other.team.id,
      name: "elsewhere",
      toolMode: "all",
      tools: [],
    });

    for (const toolsetId of [adminsOwn, elsewhere, "no-such-toolset"]) {
      await expect(
        member.caller.mcpClient.approve({ teamId: team.id, clientId, mode: "all", toolsetId }),
      ).rejects.toMatchObject({ code: "NOT_FOUND", message: "Toolset not found." });
    }
    expect(
      await getDb().personalAccessToken.count({
        where: { kind: "oauth", userId: member.userId, oauthClientId: clientId },
      }),
    ).toBe(0);

    // A team toolset is the member's to use.
    const { id: teamSet } = await admin.caller.governance.saveToolset({
      teamId: team.id,
      name: "team-reading",
      teamWide: true,
      toolMode: "router",
      tools: [{ installationId: installation.id, toolName: "read" }],
    });
    await expect(
      member.caller.mcpClient.approve({ teamId: team.id, clientId, mode: "all", toolsetId: teamSet }),
    ).resolves.toMatchObject({ grantId: expect.any(String) });
  });

  it("refuses a token bound to one team's server route at another team's server route, with a readable 401, and changes nothing", async () => {
    const a = await setup();
    const b = await setup();
    // The member belongs to both teams and has an instance of each team's server; the client is approved for team A.
    const invited = await b.admin.caller.team.invite({ teamId: b.team.id, email: a.member.email });
    await a.member.caller.invitation.accept({ invitationId: invited.id });
    // As the worker does when a member joins (no worker runs here).
    const bInstance = (await createInstance(getDb(), {
      installationId: b.installation.id,
      userId: a.member.userId,
      status: "connecting",
      at: new Date(),
    }))!;
    await discoverInto(bInstance.id, b.slug, upstream.url("/mcp"));
    const { grantId } = await a.member.caller.mcpClient.approve({
      teamId: a.team.id,
      clientId: a.clientId,
      mode: "all",
    });
    const grantBefore = await getDb().personalAccessToken.findUniqueOrThrow({ where: { id: grantId } });

    const forA = await accessToken(a.member.userId, a.clientId, a.slug);
    const forB = await accessToken(a.member.userId, a.clientId, b.slug);
    const base = new URL(mcpResourceUrl(env().APP_URL, null)).origin;
    const call = (token: string, slug: string) => initialize(token, `/api/mcp/servers/${slug}`, "crossing");
    const callsBefore = await getDb().toolCallLog.count({ where: { userId: a.member.userId } });

    // Team A's server route token at team B's server route: another resource, refused before anything runs.
    const crossed = await call(forA, b.slug);
    expect(crossed.status).toBe(401);
    expect(crossed.headers.get("mcp-session-id")).toBeNull();
    expect(crossed.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(crossed.headers.get("www-authenticate")).toContain(
      `resource_metadata="${base}/.well-known/oauth-protected-resource/api/mcp/servers/${b.slug}"`,
    );
    expect(((await crossed.json()) as { error: { message: string } }).error.message).toBe(
      "The token was issued for another MCP route (its resource); sign in again for this URL",
    );

    // A token naming team B's server as its resource, under a grant for team A: the grant's team has no such server,
    // so the route answers as it does for any server outside the caller's team (not found), and starts nothing.
    const outside = await call(forB, b.slug);
    expect(outside.status).toBe(404);
    expect(outside.headers.get("mcp-session-id")).toBeNull();
    expect(((await outside.json()) as { error: { message: string } }).error.message).toBe(
      `No server “${b.slug}” is installed for you in this team.`,
    );

    // Nothing changed: no call was logged or made, the grant is as it was, and the token still opens its own route.
    expect(await getDb().toolCallLog.count({ where: { userId: a.member.userId } })).toBe(callsBefore);
    expect(await getDb().personalAccessToken.findUniqueOrThrow({ where: { id: grantId } })).toMatchObject({
      revokedAt: grantBefore.revokedAt,
      teamId: a.team.id,
    });
    const own = (await connectClient(forA, a.slug)).client;
    expect(await names(own)).toEqual(["delete", "read", "search"]);
    await own.close();
  });
});
