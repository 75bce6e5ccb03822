import {
  startStreamableHttpServer,
  type StreamableHttpFixture,
} from "@switchboard/core/testing/streamable-http-server";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { closeJobs } from "@switchboard/runtime/jobs";
import { liveEventsReady } from "@switchboard/runtime/live-events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queuedJobs, teamWithMember } from "../../../apps/web/test/support/console";
import { patch, scim, scimUser } from "../../../apps/web/test/support/scim";
import { docsServer } from "./support/docs-server";
import { installDiscovered, startRoute, teardownRoute } from "../../../apps/gateway/test/support/mcp";
import { accessToken, initialize, registerOAuthClient } from "./support/mcp-client";

/**
 * SCIM deactivation (made through the console's SCIM endpoint) and what the gateway's MCP route then does with the
 * member's clients: a personal access token and an OAuth client's access token both stop at the next request.
 */

let upstream: StreamableHttpFixture;

beforeAll(async () => {
  upstream = await startStreamableHttpServer(docsServer());
  await startRoute();
  await liveEventsReady();
});

afterAll(async () => {
  await teardownRoute();
  await upstream?.stop();
  await closeJobs();
  await disconnectDb();
});

/** One MCP request as a client sends it: the status the route answers. */
async function status(token: string): Promise<number> {
  const res = await initialize(token, "/api/mcp", "scim-test");
  await res.body?.cancel();
  return res.status;
}

describe("SCIM deactivation at the gateway", () => {
  it("a deactivated member's MCP client gets 401 on the next request and their instances stop", async () => {
    const { admin, member, team } = await teamWithMember();
    const slug = `docs-${Math.random().toString(36).slice(2, 8)}`;
    const { instances } = await installDiscovered({
      teamId: team.id,
      slug,
      name: "Docs",
      url: upstream.url("/mcp"),
      userIds: [admin.userId, member.userId],
    });
    const client = await registerOAuthClient("Desktop client");
    await admin.caller.mcpClient.setPolicy({ teamId: team.id, allowed: true });
    await member.caller.mcpClient.approve({ teamId: team.id, clientId: client.clientId, mode: "all" });
    const { token: personal } = await member.caller.token.create({ teamId: team.id, name: "laptop" });
    const oauth = await accessToken(member.userId, client.clientId);
    const { token: adminsToken } = await admin.caller.token.create({ teamId: team.id, name: "admin" });

    // Both clients work, and the gateway now holds their principals in its cache.
    expect(await status(personal)).toBe(200);
    expect(await status(oauth)).toBe(200);

    await scim("POST", "/Users", scimUser(member.email));
    const off = await scim("PATCH", `/Users/${member.userId}`, patch({ op: "replace", value: { active: false } }));
    expect(off.body).toMatchObject({ active: false });

    await expect.poll(() => status(personal), { timeout: 10_000 }).toBe(401);
    await expect.poll(() => status(oauth), { timeout: 10_000 }).toBe(401);
    // The worker is told to stop the member's instance, and its row is gone; the admin's goes on.
    expect(await queuedJobs("member.removed")).toContainEqual(
      expect.objectContaining({ teamId: team.id, userId: member.userId, instanceIds: [instances[1]] }),
    );
    expect(await getDb().instance.findUnique({ where: { id: instances[1]! } })).toBeNull();
    expect(await getDb().instance.findUnique({ where: { id: instances[0]! } })).not.toBeNull();
    expect(await status(adminsToken)).toBe(200);
  });
});
