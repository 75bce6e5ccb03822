import type { ResolvedLaunch } from "@switchboard/core/config";
import { checkStdioCommand, CommandNotAllowedError } from "@switchboard/core/deployment";
import type { DbTx } from "@switchboard/db/client";
import { getStdioPolicy } from "@switchboard/db/queries/deployment";
import type { InstanceLaunchContext } from "@switchboard/db/launch";

/**
 * The last check before a stdio process starts (the console checked the template and the installation too):
 * the deployment's settings are read afresh, so a team no longer allowed stdio servers, or a command taken off
 * the allow-list, starts nothing more. The resolved arguments are checked, member values included.
 */
export async function assertStdioLaunchAllowed(
  db: DbTx,
  ctx: InstanceLaunchContext,
  launch: ResolvedLaunch,
): Promise<void> {
  if (launch.transport !== "stdio") return;
  const policy = await getStdioPolicy(db, ctx.installation.teamId);
  const decision = checkStdioCommand({
    command: launch.command,
    args: launch.args,
    // The template's env fields, not launch.env: what the worker itself sets (a sandbox's PATH, say) is not the team's.
    envKeys: ctx.installation.template.fields.filter((f) => f.kind === "env").map((f) => f.key),
    allowList: policy.allowList,
    teamStdioAllowed: policy.teamStdioAllowed,
  });
  if (!decision.allowed) throw new CommandNotAllowedError(decision.reason);
}
