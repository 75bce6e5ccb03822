import {
  startStreamableHttpServer,
  type StreamableHttpFixture,
} from "@switchboard/core/testing/streamable-http-server";
import { describe, expect, it } from "vitest";
import { teamWithMember } from "../../../apps/web/test/support/console";
import { docsServer } from "./support/docs-server";
import { connectClient, installDiscovered, routeForFile } from "../../../apps/gateway/test/support/mcp";

/**
 * What the request log says of calls governance refuses: the route answers "Unknown tool" as for a tool that
 * never existed, and the log keeps the refusal (blocked, with the reason), under the name the client called and
 * the upstream's.
 */

let upstream: StreamableHttpFixture;

const ctx = routeForFile({
  start: async () => [(upstream = await startStreamableHttpServer(docsServer()))],
  setup: async () => {
    const { admin, member, team } = await teamWithMember();
    const { installation } = await installDiscovered({
      teamId: team.id,
      slug: "docs",
      name: "Docs",
      url: upstream.url("/mcp"),
      userIds: [admin.userId, member.userId],
    });
    const token = (await member.caller.token.create({ teamId: team.id, name: "log" })).token;
    return { admin, member, team, installation, token };
  },
});

describe("the request log of calls governance refuses", () => {
  it("logs a call to a hidden tool as blocked, with the name the client called, the upstream's and the reason", async () => {
    const { admin, member, team, installation, token } = ctx;
    await member.caller.governance.setHidden({
      teamId: team.id,
      installationId: installation.id,
      toolName: "delete",
      hidden: true,
    });
    const { client } = await connectClient(token);
    await expect(client.callTool({ name: "docs-delete", arguments: { id: "7" } })).rejects.toThrow(
      "Unknown tool: docs-delete",
    );
    // A name that is no tool at all is not a refusal: nothing to log.
    await expect(client.callTool({ name: "docs-nothing", arguments: {} })).rejects.toThrow("Unknown tool");
    await client.close();

    const blocked = async () =>
      (await admin.caller.ops.teamRequestLog({ teamId: team.id, limit: 25, outcome: "blocked" })).items;
    await expect.poll(async () => (await blocked()).length, { timeout: 10_000 }).toBe(1);
    const [row] = await blocked();
    expect(row).toMatchObject({ requested: "docs-delete", target: "delete", outcome: "blocked", method: "tools/call" });
    expect(row!.user.id).toBe(member.userId);
    const entry = await admin.caller.ops.requestLogEntry({ teamId: team.id, callId: row!.id });
    expect(entry.errorMessage).toBe("The member hid delete of Docs from their clients.");
    expect(entry.arguments).toEqual({ id: "7" });
    // The log's filter by name finds it by either name.
    const byName = (target: string) =>
      admin.caller.ops.teamRequestLog({ teamId: team.id, limit: 25, outcome: "blocked", target });
    expect((await byName("docs-del")).items).toHaveLength(1);
    expect((await byName("nothing")).items).toHaveLength(0);
  });

  it("logs a call to a tool an admin turned off as blocked, with the reason", async () => {
    const { admin, team, installation, token } = ctx;
    await admin.caller.governance.save({
      teamId: team.id,
      installationId: installation.id,
      tools: [{ name: "search", enabled: false }],
    });
    const { client } = await connectClient(token, "docs");
    await expect(client.callTool({ name: "search", arguments: { q: "x" } })).rejects.toThrow("Unknown tool: search");
    await client.close();
    const find = async () =>
      (await admin.caller.ops.teamRequestLog({ teamId: team.id, limit: 25, outcome: "blocked", target: "search" }))
        .items;
    await expect.poll(async () => (await find()).length, { timeout: 10_000 }).toBe(1);
    const entry = await admin.caller.ops.requestLogEntry({ teamId: team.id, callId: (await find())[0]!.id });
    expect(entry).toMatchObject({ requested: "search", target: "search", outcome: "blocked" });
    expect(entry.errorMessage).toBe("An admin turned search of Docs off.");
  });
});
