/**
 * Policies benchmark: the same tools/call of an echo tool through one route process in the same run, for a team
 * without policies of its own (the gate reads its cached "none" and decides without Cedar) and a team with five
 * Cedar policies that all apply to the call (a permit, forbids on destructive tools for members, on an argument's
 * value and on a group, an approval for a group), none of which refuses it: each call is two Cedar evaluations
 * (List, then CallTool). What policies cost on the hot path, as latency with one client and as the route's CPU
 * per call with 32.
 */
import { saveTeamPolicySet } from "@switchboard/db/queries/policy";
import { policyTextHash } from "@switchboard/core/team-policies";
import { runOnOff } from "./on-off";

/** Five policies, all evaluated for every call; the echo call is permitted. */
const POLICIES = `@id("all")
permit(principal, action, resource);

@id("members-no-destructive")
@reason("Members may not run destructive tools.")
forbid(principal in Switchboard::Role::"member", action == Switchboard::Action::"CallTool", resource)
when { resource.destructiveHint };

@id("no-drop")
@reason("No dropping.")
forbid(principal, action == Switchboard::Action::"CallTool", resource == Switchboard::Tool::"echo/echo")
when { context.arguments.hasTag("text") && context.arguments.getTag("text") like "*drop table*" };

@id("no-interns")
forbid(principal in Switchboard::Group::"interns", action, resource);

@id("contractors-ask")
@effect("approval")
permit(principal in Switchboard::Group::"contractors", action == Switchboard::Action::"CallTool", resource);
`;

export async function run(): Promise<void> {
  await runOnOff({
    name: "policies",
    describe: () => "a team on the default policies and one with five Cedar policies",
    async turnOn(db, { on }) {
      await saveTeamPolicySet(db, {
        teamId: on.teamId,
        text: POLICIES,
        hash: policyTextHash(POLICIES),
        savedById: null,
        savedByLabel: "bench",
        expectedVersion: null,
      });
    },
  });
}
