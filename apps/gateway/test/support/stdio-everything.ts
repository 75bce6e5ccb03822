import { getDb } from "@switchboard/db/client";
import { setTeamStdioAllowed } from "@switchboard/db/queries/deployment";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { allowCommands, makeAccessToken, makeTeam, makeUser } from "@switchboard/db/testing";

type AllowedCommand = Parameters<typeof allowCommands>[1][number];

/**
 * `mcp-server-everything` over stdio, installed for a team of one: a team as the console creates it (no stdio),
 * then what a deployment owner does before it can run the command (and `moreCommands`, for servers a test adds).
 * Returns the member's instance (provisioning: the worker that starts next discovers it), a token of theirs, and
 * who they are, for more installations and tokens.
 */
export async function installEverythingStdio(
  tokenName: string,
  moreCommands: AllowedCommand[] = [],
): Promise<{ instanceId: string; token: string; userId: string; teamId: string }> {
  const db = getDb();
  const alice = await makeUser(db, { name: "alice" });
  const team = await makeTeam(db, alice, { stdioAllowed: false });
  await setTeamStdioAllowed(db, { teamId: team.id, allowed: true });
  await allowCommands(db, [{ kind: "executable", name: "mcp-server-everything" }, ...moreCommands]);
  const template = await seedTemplate(db, {
    teamId: team.id,
    slug: "everything",
    name: "Everything",
    transport: "stdio",
    command: "mcp-server-everything",
  });
  const installation = await seedInstallation(db, { template });
  const token = (await makeAccessToken(db, { userId: alice.id, teamId: team.id, name: tokenName })).token;
  return { instanceId: installation.instances[0]!.id, token, userId: alice.id, teamId: team.id };
}
