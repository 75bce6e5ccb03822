import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { APPROVAL_REQUIRED_CODE, POLICY_FORBIDDEN_CODE } from "@switchboard/core/governance";
import {
  startStreamableHttpServer,
  type StreamableHttpFixture,
} from "@switchboard/core/testing/streamable-http-server";
import { getDb } from "@switchboard/db/client";
import { describe, expect, it } from "vitest";
import { teamWithMember } from "../../../apps/web/test/support/console";
import { docsServer } from "./support/docs-server";
import { connectClient, installDiscovered, routeForFile } from "../../../apps/gateway/test/support/mcp";

/**
 * The console's "what would happen" panel (`policies.whatWouldHappen`) and the route decide alike: policies
 * saved through the console's API, then a table of calls, each asked of the panel and made by a member's SDK
 * client through the route.
 */

let upstream: StreamableHttpFixture;

async function setup() {
  const db = getDb();
  const { admin, member, team } = await teamWithMember();
  const { installation } = await installDiscovered({
    teamId: team.id,
    slug: "docs",
    name: "Docs",
    url: upstream.url("/mcp"),
    userIds: [member.userId],
  });
  // The member is in the identity provider's "contractors" group.
  const group = await db.scimGroup.create({ data: { displayName: `contractors` } });
  await db.scimGroupMember.create({ data: { groupId: group.id, userId: member.userId } });
  const memberToken = async () =>
    (await member.caller.token.create({ teamId: team.id, name: `t-${Math.random()}` })).token;
  return { db, admin, member, team, installation, memberToken };
}

const ctx = routeForFile({
  start: async () => [(upstream = await startStreamableHttpServer(docsServer()))],
  setup,
});

const POLICIES = `@id("all")
permit(principal, action, resource);

@id("members-keep-documents")
@reason("Members may not delete documents.")
forbid(principal in Switchboard::Role::"member", action == Switchboard::Action::"CallTool", resource == Switchboard::Tool::"docs/delete");

@id("no-secret-searches")
@reason("Searching for secrets is not allowed.")
forbid(principal, action == Switchboard::Action::"CallTool", resource == Switchboard::Tool::"docs/search")
when { context.arguments.hasTag("q") && context.arguments.getTag("q") like "*secret*" };

@id("contractors-read-with-approval")
@effect("approval")
@reason("Contractors read documents with an admin's approval.")
permit(principal in Switchboard::Group::"contractors", action == Switchboard::Action::"CallTool", resource == Switchboard::Tool::"docs/read");
`;

const CASES: Array<{ tool: string; args: Record<string, unknown> }> = [
  { tool: "search", args: { q: "quarterly report" } },
  { tool: "search", args: { q: "the secret plan" } },
  { tool: "delete", args: { id: "7" } },
  { tool: "read", args: { id: "7" } },
];

describe("the what-would-happen panel and the route", () => {
  it("decide each call of the table alike", async () => {
    const { admin, member, team, installation } = ctx;
    await admin.caller.policies.save({ teamId: team.id, text: POLICIES, expectedVersion: null });
    const { client } = await connectClient(await ctx.memberToken());
    const effects = new Set<string>();
    try {
      for (const c of CASES) {
        const panel = await admin.caller.policies.whatWouldHappen({
          teamId: team.id,
          memberUserId: member.userId,
          installationId: installation.id,
          toolName: c.tool,
          arguments: c.args,
          client: "route-test",
          token: "token",
        });
        let route: { effect: string; reason?: string };
        try {
          await client.callTool({ name: `docs-${c.tool}`, arguments: c.args });
          route = { effect: "permit" };
        } catch (err) {
          if (!(err instanceof McpError)) throw err;
          const reason = err.message.replace(/^MCP error -?\d+: /, "");
          if (err.code === POLICY_FORBIDDEN_CODE) route = { effect: "forbid", reason };
          else if (err.code === APPROVAL_REQUIRED_CODE) route = { effect: "approval" };
          else throw err;
        }
        effects.add(panel.effect);
        expect({ case: c, ...route }).toEqual({
          case: c,
          effect: panel.effect,
          ...(panel.effect === "forbid" ? { reason: panel.reason } : {}),
        });
      }
    } finally {
      await client.close();
    }
    // The table covers every effect.
    expect([...effects].sort()).toEqual(["approval", "forbid", "permit"]);
  });
});
