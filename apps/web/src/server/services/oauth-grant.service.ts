import type { Db } from "@switchboard/db/client";
import {
  dynamicClientsAllowed,
  findOAuthClient,
  findOAuthGrantOfClient,
  grantOAuthClient,
  listOAuthGrants,
  revokeDynamicClientGrants,
  revokeOAuthGrant,
  setDynamicClientsAllowed,
} from "@switchboard/db/queries/oauth-grant";
import { listTeamsForUser } from "@switchboard/db/queries/team";
import { findToolsetOfMember } from "@switchboard/db/queries/toolset";
import { AppError } from "../errors";
import { invalidateAccess } from "@switchboard/runtime/invalidations";

/**
 * MCP clients that signed in with OAuth. Better Auth (in the console) runs the protocol; this service holds the
 * consent page's and Connect page's operations on grants (token rows of kind `oauth`). The gateway checks the
 * access tokens (apps/gateway/src/auth/oauth.ts) and hears of revocations through Redis, as for personal tokens.
 */

/** What the consent page shows: the client, the member's teams (with whether each accepts this client), the earlier grant. */
export async function consentContext({ db, userId, clientId }: { db: Db; userId: string; clientId: string }) {
  const client = await findOAuthClient(db, { clientId });
  if (!client)
    throw new AppError("NOT_FOUND", "This application is not registered with Switchboard, or it was removed.");
  const registration = client.clientDiscoveryId ? ("metadata-document" as const) : ("dynamic" as const);
  const teams = await listTeamsForUser(db, { userId });
  const withPolicy = await Promise.all(
    teams.map(async (t) => ({
      id: t.id,
      name: t.name,
      slug: t.slug,
      allowed: registration === "metadata-document" || (await dynamicClientsAllowed(db, { teamId: t.id })),
    })),
  );
  const earlier = await findOAuthGrantOfClient(db, { userId, clientId });
  return {
    client: {
      clientId: client.clientId,
      name: client.name ?? "An unnamed application",
      logoUri: client.icon,
      clientUri: client.uri,
      registration,
      redirectUris: client.redirectUris,
    },
    teams: withPolicy,
    earlier: earlier ? { teamId: earlier.teamId, mode: earlier.mode, toolsetId: earlier.toolsetId } : null,
  };
}

/**
 * The member allows the client into one of their teams, optionally limited to one toolset (their own or the
 * team's, as for a personal token); the provider's consent follows on the page.
 */
export async function approve({
  db,
  userId,
  clientId,
  teamId,
  mode,
  toolsetId = null,
}: {
  db: Db;
  userId: string;
  clientId: string;
  teamId: string;
  mode: "all" | "router";
  toolsetId?: string | null;
}) {
  const context = await consentContext({ db, userId, clientId });
  const team = context.teams.find((t) => t.id === teamId);
  if (!team) throw new AppError("NOT_FOUND", "Team not found.");
  if (!team.allowed)
    throw new AppError(
      "FORBIDDEN",
      `${team.name} does not accept applications that registered themselves; ask a team admin, or use a personal access token.`,
    );
  // Another member's toolset is "not found" like one that does not exist.
  if (toolsetId && !(await findToolsetOfMember(db, { teamId, userId, toolsetId })))
    throw new AppError("NOT_FOUND", "Toolset not found.");
  const { id, replaced } = await grantOAuthClient(db, {
    userId,
    teamId,
    clientId,
    clientName: context.client.name,
    mode,
    toolsetId,
  });
  for (const tokenId of replaced) await invalidateAccess({ tokenId });
  return { grantId: id };
}

export async function list({ db, userId, teamId }: { db: Db; userId: string; teamId: string }) {
  return listOAuthGrants(db, { userId, teamId });
}

export async function revoke({
  db,
  userId,
  teamId,
  grantId,
}: {
  db: Db;
  userId: string;
  teamId: string;
  grantId: string;
}) {
  const clientId = await revokeOAuthGrant(db, { userId, teamId, grantId });
  if (clientId === null) throw new AppError("NOT_FOUND", "Signed-in client not found or already revoked.");
  await invalidateAccess({ tokenId: grantId });
}

export async function dynamicClientsPolicy({ db, teamId }: { db: Db; teamId: string }) {
  return { allowed: await dynamicClientsAllowed(db, { teamId }) };
}

/** Turning dynamically registered clients off also signs out those already in the team. */
export async function setDynamicClientsPolicy({ db, teamId, allowed }: { db: Db; teamId: string; allowed: boolean }) {
  await setDynamicClientsAllowed(db, { teamId, allowed });
  if (allowed) return { signedOut: 0 };
  const ended = await revokeDynamicClientGrants(db, { teamId });
  for (const tokenId of ended) await invalidateAccess({ tokenId });
  return { signedOut: ended.length };
}
