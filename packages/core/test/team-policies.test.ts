import { describe, expect, it } from "vitest";
import { defaultPolicyDecision } from "../src/governance";
import {
  checkPolicies,
  decideCall,
  DEFAULT_TEAM_POLICIES,
  hiddenByPolicies,
  POLICY_NO_PERMIT_REASON,
  type CompiledPolicies,
  type PolicyRequest,
} from "../src/governance/policies";

function compile(text: string, version = "7"): CompiledPolicies {
  const checked = checkPolicies(text, version);
  if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
  return checked.compiled;
}

const member = { userId: "u-member", email: "m@example.com", role: "member", groups: [] as string[] };
const admin = { userId: "u-admin", email: "a@example.com", role: "admin", groups: [] as string[] };
const contractor = { userId: "u-contractor", email: "c@example.com", role: "member", groups: ["contractors"] };

function call(over: Partial<Omit<PolicyRequest, "action">> & { tool?: string; destructive?: boolean } = {}) {
  const { tool = "delete_repo", destructive = true, ...rest } = over;
  return {
    teamId: "team-1",
    principal: member,
    item: {
      kind: "tool" as const,
      target: tool,
      installationId: "inst-1",
      installationSlug: "github",
      annotations: destructive ? { destructiveHint: true } : { readOnlyHint: true },
    },
    arguments: {},
    token: "token" as const,
    client: "claude-code",
    revision: "2025-11-25",
    time: new Date("2026-11-28T10:00:00Z"),
    ...rest,
  };
}

const ALL = `@id("all")\npermit(principal, action, resource);\n`;

describe("team policies in Cedar", () => {
  it("forbids destructive tools to members with the policy's reason, and lets admins call them", () => {
    const set = compile(`${ALL}
@id("no-destructive-for-members")
@reason("Members may not run destructive tools; ask an admin.")
forbid(principal in Switchboard::Role::"member", action == Switchboard::Action::"CallTool", resource)
when { resource.destructiveHint };
`);
    expect(decideCall(set, call())).toEqual({
      effect: "forbid",
      reason: "Members may not run destructive tools; ask an admin.",
      policyId: "no-destructive-for-members",
      policyVersion: "7",
    });
    expect(decideCall(set, call({ principal: admin })).effect).toBe("permit");
    expect(decideCall(set, call({ tool: "list_repos", destructive: false })).effect).toBe("permit");
  });

  it("takes a tool without annotations as destructive, as the MCP specification's defaults say", () => {
    const set = compile(`${ALL}
forbid(principal, action == Switchboard::Action::"CallTool", resource) when { resource.destructiveHint };
`);
    const bare = call();
    const unannotated = { ...bare, item: { ...bare.item, annotations: undefined } };
    expect(decideCall(set, unannotated).effect).toBe("forbid");
  });

  it("permits a tool only for the argument values a policy allows", () => {
    const set = compile(`
@id("list-any")
permit(principal, action == Switchboard::Action::"List", resource);

@id("echo-greetings")
permit(principal, action == Switchboard::Action::"CallTool", resource == Switchboard::Tool::"github/echo")
when { context.arguments.hasTag("text") && context.arguments.getTag("text") like "hello*" };

@id("small-sums")
permit(principal, action == Switchboard::Action::"CallTool", resource == Switchboard::Tool::"github/add")
when { context.numbers.hasTag("a") && context.numbers.getTag("a") <= 10 };
`);
    const echo = (text: unknown) => decideCall(set, call({ tool: "echo", arguments: { text } }));
    expect(echo("hello world")).toMatchObject({ effect: "permit", policyId: "echo-greetings" });
    expect(echo("drop table")).toMatchObject({ effect: "forbid", reason: POLICY_NO_PERMIT_REASON });
    expect(decideCall(set, call({ tool: "echo", arguments: {} })).effect).toBe("forbid");
    expect(decideCall(set, call({ tool: "add", arguments: { a: 3 } })).effect).toBe("permit");
    expect(decideCall(set, call({ tool: "add", arguments: { a: 11 } })).effect).toBe("forbid");
    expect(decideCall(set, call({ tool: "add", arguments: { a: "3" } })).effect).toBe("forbid");
  });

  it("holds calls of a group's members for approval, with the policy's reason", () => {
    const set = compile(`${ALL}
@id("contractors-ask")
@effect("approval")
@reason("Contractors' calls are approved by an admin.")
permit(principal in Switchboard::Group::"contractors", action == Switchboard::Action::"CallTool", resource);
`);
    expect(decideCall(set, call({ principal: contractor }))).toEqual({
      effect: "approval",
      reason: "Contractors' calls are approved by an admin.",
      policyId: "contractors-ask",
      policyVersion: "7",
    });
    expect(decideCall(set, call({ principal: member })).effect).toBe("permit");
  });

  it("hides what a policy forbids listing, and says so to the route", () => {
    const set = compile(`${ALL}
forbid(principal, action, resource == Switchboard::Tool::"github/delete_repo");
`);
    expect(hiddenByPolicies(set, call())).toBe(true);
    expect(decideCall(set, call())).toMatchObject({ effect: "forbid", hidden: true });
    expect(hiddenByPolicies(set, call({ tool: "list_repos" }))).toBe(false);
    expect(hiddenByPolicies(null, call())).toBe(false);
  });

  it("decides as today's governance with the default policies, with or without Cedar", () => {
    const defaults = compile(DEFAULT_TEAM_POLICIES, "default");
    const governance = { tools: { delete_repo: { requiresApproval: true } } };
    for (const [request, gov] of [
      [call(), governance],
      [call({ tool: "list_repos", destructive: false }), governance],
      [call(), undefined],
      [call({ principal: contractor }), governance],
    ] as const) {
      const today = defaultPolicyDecision({ kind: "tool", target: request.item.target, governance: gov });
      expect(decideCall(null, request, gov)).toEqual(today);
      expect(decideCall(defaults, request, gov)).toMatchObject({ effect: today.effect, policyVersion: "default" });
    }
  });

  it("names the line of each problem in a policy text", () => {
    const checked = checkPolicies(`${ALL}\npermit(principal, action, resource)\nwhen { resource.nam == "x" };\n`, "1");
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.problems[0]).toMatchObject({ line: 5 });
    expect(checked.problems[0]!.message).toContain("nam");

    const syntax = checkPolicies(`${ALL}\nforbid(principal action, resource);\n`, "1");
    expect(syntax.ok).toBe(false);
    if (!syntax.ok) expect(syntax.problems[0]!.line).toBe(4);

    const twice = checkPolicies(
      `@id("a")\npermit(principal, action, resource);\n@id("a")\nforbid(principal, action, resource);\n`,
      "1",
    );
    expect(twice.ok).toBe(false);
    if (!twice.ok) expect(twice.problems[0]).toMatchObject({ line: 3, policyId: "a" });

    const badEffect = checkPolicies(`@effect("approval")\nforbid(principal, action, resource);\n`, "1");
    expect(badEffect.ok).toBe(false);
  });
});
