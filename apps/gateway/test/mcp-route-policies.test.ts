import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { POLICY_FORBIDDEN_CODE } from "@switchboard/core/governance";
import { demoServer } from "@switchboard/core/testing/demo-server";
import { checkPolicies, decideCall, POLICY_UNAVAILABLE_REASON } from "@switchboard/core/team-policies";
import { currentTeamPolicySet } from "@switchboard/db/queries/policy";
import { waitUntil } from "@switchboard/testing/wait";
import { connectClient } from "./support/mcp";
import { startRouteTeam, stopRouteTeam, usePolicies, type RouteTeam } from "./support/route-team";

/**
 * Team policies on the route, with a real upstream and the SDK's client: a forbid's reason reaches the client
 * with -32031 and the request log as blocked; a tool a policy hides is as missing as one that never existed; and
 * the route decides as core `decideCall` (the console's "what would happen" panel) does, case by case.
 */

const seen: Record<string, number> = { wipe: 0, look: 0, secret: 0 };

let ctx: RouteTeam;

beforeAll(async () => {
  const demo = demoServer();
  ctx = await startRouteTeam(() => {
    const server = demo();
    for (const [name, readOnly] of [
      ["wipe", false],
      ["look", true],
      ["secret", true],
    ] as const)
      server.registerTool(
        name,
        { description: name, annotations: readOnly ? { readOnlyHint: true } : { destructiveHint: true } },
        async () => {
          seen[name]!++;
          return { content: [{ type: "text", text: `${name} done` }] };
        },
      );
    return server;
  });
  // Alice is an ordinary member of her team here, so that member policies apply to her.
  await ctx.db.membership.update({
    where: { teamId_userId: { teamId: ctx.team.id, userId: ctx.alice.id } },
    data: { role: "member" },
  });
}, 60_000);

afterAll(async () => {
  await stopRouteTeam(ctx?.upstream);
});

async function refusal(run: () => Promise<unknown>): Promise<McpError> {
  try {
    await run();
  } catch (err) {
    if (err instanceof McpError) return err;
    throw err;
  }
  throw new Error("the call was not refused");
}

const PERMIT_ALL = `@id("all")\npermit(principal, action, resource);\n`;
const NO_DESTRUCTIVE = `${PERMIT_ALL}
@id("members-no-destructive")
@reason("Members may not run destructive tools; ask a team admin.")
forbid(principal in Switchboard::Role::"member", action == Switchboard::Action::"CallTool", resource)
when { resource.destructiveHint };
`;
const HIDE_SECRET = `${PERMIT_ALL}
@id("hide-secret")
forbid(principal, action, resource == Switchboard::Tool::"my-demo/secret");
`;
const ECHO_GREETINGS = `
permit(principal, action == Switchboard::Action::"List", resource);
@id("echo-greetings")
@reason("Only greetings may be echoed.")
permit(principal, action == Switchboard::Action::"CallTool", resource == Switchboard::Tool::"my-demo/echo")
when { context.arguments.hasTag("text") && context.arguments.getTag("text") like "hello*" };
@id("look-from-route-test")
permit(principal, action == Switchboard::Action::"CallTool", resource == Switchboard::Tool::"my-demo/look")
when { context.client == "route-test" && context.token == "token" };
`;

describe("team policies on the route", () => {
  it("refuses a destructive tool to a member with the policy's reason (-32031) and logs it as blocked", async () => {
    await usePolicies(ctx, NO_DESTRUCTIVE);
    const { client } = await connectClient(await ctx.newToken("policy-forbid"));
    try {
      const refused = await refusal(() => client.callTool({ name: "my-demo-wipe", arguments: {} }));
      expect(refused.code).toBe(POLICY_FORBIDDEN_CODE);
      expect(refused.message).toContain("Members may not run destructive tools; ask a team admin.");
      expect(seen.wipe).toBe(0);
      // What is not destructive goes on as ever.
      const looked = await client.callTool({ name: "my-demo-look", arguments: {} });
      expect(looked.content).toEqual([{ type: "text", text: "look done" }]);
      await waitUntil(
        async () =>
          (await ctx.db.toolCallLog.count({
            where: {
              target: "wipe",
              outcome: "blocked",
              errorMessage: "Members may not run destructive tools; ask a team admin.",
            },
          })) === 1,
        "the forbidden call in the request log",
      );
    } finally {
      await client.close();
    }
  });

  it("keeps a tool a policy hides out of tools/list and answers a call to it as to a missing tool", async () => {
    await usePolicies(ctx, HIDE_SECRET);
    const { client } = await connectClient(await ctx.newToken("policy-hide"));
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("my-demo-look");
      expect(names).not.toContain("my-demo-secret");
      const hidden = await refusal(() => client.callTool({ name: "my-demo-secret", arguments: {} }));
      const missing = await refusal(() => client.callTool({ name: "my-demo-nothing", arguments: {} }));
      expect(hidden.code).toBe(missing.code);
      expect(hidden.message.replace("my-demo-secret", "NAME")).toBe(missing.message.replace("my-demo-nothing", "NAME"));
      expect(hidden.data).toEqual(missing.data);
      expect(seen.secret).toBe(0);
    } finally {
      await client.close();
    }
  });

  it("decides each call as the what-would-happen function does", async () => {
    const token = await ctx.newToken("policy-table");
    const version = await (async () => {
      await usePolicies(ctx, ECHO_GREETINGS);
      return String((await currentTeamPolicySet(ctx.db, { teamId: ctx.team.id }))!.version);
    })();
    const checked = checkPolicies(ECHO_GREETINGS, version);
    if (!checked.ok) throw new Error("the policies do not check");
    const { client } = await connectClient(token);
    const cases: Array<{ tool: string; args: Record<string, unknown>; annotations?: Record<string, boolean> }> = [
      { tool: "echo", args: { text: "hello there" } },
      { tool: "echo", args: { text: "goodbye" } },
      { tool: "look", args: {}, annotations: { readOnlyHint: true } },
      { tool: "wipe", args: {}, annotations: { destructiveHint: true } },
    ];
    try {
      for (const c of cases) {
        const expected = decideCall(checked.compiled, {
          teamId: ctx.team.id,
          principal: { userId: ctx.alice.id, email: ctx.alice.email, role: "member", groups: [] },
          item: {
            kind: "tool",
            target: c.tool,
            installationId: ctx.installation.id,
            installationSlug: "my-demo",
            ...(c.annotations ? { annotations: c.annotations } : {}),
          },
          arguments: c.args,
          token: "token",
          client: "route-test",
          revision: "2025-11-25",
          time: new Date(),
        });
        let route: { effect: string; reason?: string };
        try {
          await client.callTool({ name: `my-demo-${c.tool}`, arguments: c.args });
          route = { effect: "permit" };
        } catch (err) {
          if (!(err instanceof McpError) || err.code !== POLICY_FORBIDDEN_CODE) throw err;
          route = { effect: "forbid", reason: err.message.replace(/^MCP error -?\d+: /, "") };
        }
        expect({ case: c, ...route }).toEqual({
          case: c,
          effect: expected.effect,
          ...(expected.effect === "forbid" ? { reason: expected.reason } : {}),
        });
      }
    } finally {
      await client.close();
    }
  });

  it("refuses with a sentence, and lists nothing, when the saved policies cannot be evaluated", async () => {
    // A text saved past the console's check (as one written before a schema change would be).
    await usePolicies(ctx, `permit(principal, action, resource) when { resource.gone == 1 };`);
    const { client } = await connectClient(await ctx.newToken("policy-broken"));
    try {
      const refused = await refusal(() => client.callTool({ name: "my-demo-look", arguments: {} }));
      expect(refused.code).toBe(POLICY_FORBIDDEN_CODE);
      expect(refused.message).toContain(POLICY_UNAVAILABLE_REASON);
      expect((await client.listTools()).tools).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("decides as before for a team back on the default policies", async () => {
    await usePolicies(ctx, null);
    const { client } = await connectClient(await ctx.newToken("policy-default"));
    try {
      const wiped = await client.callTool({ name: "my-demo-wipe", arguments: {} });
      expect(wiped.content).toEqual([{ type: "text", text: "wipe done" }]);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("my-demo-secret");
    } finally {
      await client.close();
    }
  });
});
