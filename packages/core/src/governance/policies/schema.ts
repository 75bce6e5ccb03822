/**
 * The Cedar schema team policies are written and validated against (docs/policies.md). One namespace,
 * `Switchboard`; every request has a Member as principal, one of four actions, and a Tool, Resource or Prompt of
 * an Installation as resource.
 *
 * - A Member is in their Role (`Role::"member"`, `"admin"`, `"owner"`) and in each of their Groups (by name, as
 *   the identity provider pushed them).
 * - A Tool's hints are the MCP annotations with the specification's defaults filled in (`destructiveHint` is
 *   true unless the tool says otherwise or is read-only; `openWorldHint` is true unless said otherwise).
 * - Arguments are entity tags, since every tool has its own: `context.arguments` holds each argument as text
 *   (strings as they are, anything else as JSON), `context.numbers` the integer ones as numbers. Test with
 *   `hasTag` before `getTag`.
 */

export const POLICY_NAMESPACE = "Switchboard";

export const POLICY_ACTIONS = ["CallTool", "ReadResource", "GetPrompt", "List"] as const;
export type PolicyAction = (typeof POLICY_ACTIONS)[number];

export const POLICY_SCHEMA = `namespace Switchboard {
  entity Team;
  entity Role;
  entity Group;
  entity Member in [Role, Group] { role: String, groups: Set<String>, email: String };
  entity Installation in [Team] { slug: String };
  entity Tool in [Installation] {
    name: String,
    readOnlyHint: Bool,
    destructiveHint: Bool,
    idempotentHint: Bool,
    openWorldHint: Bool,
  };
  entity Resource in [Installation] { uri: String };
  entity Prompt in [Installation] { name: String };
  entity Arguments tags String;
  entity Numbers tags Long;
  type Context = {
    arguments: Arguments,
    numbers: Numbers,
    time: { epochSeconds: Long, hourUtc: Long, weekdayUtc: Long },
    client: String,
    token: String,
    revision: String,
  };
  action CallTool appliesTo { principal: Member, resource: Tool, context: Context };
  action ReadResource appliesTo { principal: Member, resource: Resource, context: Context };
  action GetPrompt appliesTo { principal: Member, resource: Prompt, context: Context };
  action List appliesTo { principal: Member, resource: [Tool, Resource, Prompt], context: Context };
}
`;
