import type { AllowedCommand } from "@switchboard/core/deployment";
import { getDb } from "@switchboard/db/client";
import { setTeamStdioAllowed } from "@switchboard/db/queries/deployment";
import { allowCommands } from "@switchboard/db/testing";

/** What a deployment owner does before a team can run these stdio commands (tests share one allow-list: add only). */
export async function allowStdio(teamId: string, commands: AllowedCommand[]) {
  await setTeamStdioAllowed(getDb(), { teamId, allowed: true });
  await allowCommands(getDb(), commands);
}
