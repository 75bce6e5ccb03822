import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  startStreamableHttpServer,
  type StreamableHttpFixture,
} from "@switchboard/core/testing/streamable-http-server";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { env } from "@switchboard/runtime/env";
import { issuerUrl, mcpResourceUrl } from "@switchboard/runtime/mcp-authorization";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { getAuth } from "~/server/auth";
import { teamWithMember } from "../../web/test/support/console";
import { connectClient, discoverInto, startRoute, teardownRoute } from "./support/mcp";

/**
 * OAuth grants limited to a toolset: the member approves a client on the consent page (`mcpClient.approve`) with a
 * toolset, and the client's access tokens (signed by the console's authorization server, Better Auth's jwt plugin,
 * with the keys the route verifies against) reach only that toolset's tools at `/api/mcp`.
 */

function docsServer() {
  return () => {
    const server = new McpServer({ name: "docs", version: "1.0.0" });
    server.registerTool(
      "search",
      { description: "Search the documents", inputSchema: { q: z.string() } },
      async ({ q }) => ({ content: [{ type: "text", text: `found ${q}` }] }),
    );
    server.registerTool(
      "read",
      { description: "Read a document", inputSchema: { id: z.string() } },
      async ({ id }) => ({ content: [{ type: "text", text: `doc ${id}` }] }),
    );
    server.registerTool(
      "delete",
      { description: "Delete a document", inputSchema: { id: z.string() } },
      async ({ id }) => ({ content: [{ type: "text", text: `deleted ${id}` }] }),
    );
    return server;
  };
}

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
  const db = getDb();
  const people = await teamWithMember();
  const { admin, member, team } = people;
  const slug = `docs-${Math.random().toString(36).slice(2, 8)}`;
  const template = await seedTemplate(db, {
    teamId: team.id,
    slug,
    name: "Docs",
    transport: "streamable_http",
    url: upstream.url("/mcp"),
  });
  const installation = await seedInstallation(db, { template, slug });
  for (const userId of [admin.userId, member.userId]) {
    const instance = await db.instance.findFirstOrThrow({ where: { installationId: installation.id, userId } });
    await discoverInto(instance.id, slug, upstream.url("/mcp"));
  }
  const unique = Math.random().toString(36).slice(2, 10);
  // An MCP client registered with the authorization server, as dynamic registration leaves it.
  const client = await db.oauthClient.create({
    data: {
      id: `oc-${unique}`,
      clientId: `client-${unique}`,
      name: "Toolset client",
      redirectUris: ["http://127.0.0.1:9/callback"],
      tokenEndpointAuthMethod: "none",
      createdAt: new Date(),
    },
  });
  await admin.caller.mcpClient.setPolicy({ teamId: team.id, allowed: true });
  return { ...people, slug, installation, clientId: client.clientId };
}

/** An access token for the route as the authorization server issues it after consent (subject, client, resource). */
async function accessToken(userId: string, clientId: string) {
  const appUrl = env().APP_URL;
  const now = Math.floor(Date.now() / 1000);
  const { token } = await getAuth().api.signJWT({
    body: {
      payload: {
        sub: userId,
        azp: clientId,
        iss: issuerUrl(appUrl),
        aud: mcpResourceUrl(appUrl, null),
        iat: now,
        exp: now + 600,
        scope: "mcp",
      },
    },
  });
  return token;
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
});
