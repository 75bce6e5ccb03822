import { randomBytes } from "node:crypto";
import type { Db, DbTx } from "../client";
import { sha256 } from "../crypto";

/**
 * The grants members give MCP clients through the consent page (Switchboard as its own MCP route's OAuth
 * authorization server). A grant is a `personal_access_tokens` row of kind `oauth`: the client's short-lived
 * access tokens (Better Auth's JWTs) reach what that row reaches, through the same sessions, caps, request log and
 * revocation as a personal token. Better Auth's own tables (oauth_clients, oauth_refresh_tokens, ...) hold the
 * protocol state; this module reads and clears them where a grant's life demands it.
 */

const GRANT_PREFIX = "oauth";

/** The public signing keys of the authorization server (Better Auth's jwt plugin), to verify access tokens. */
export async function listSigningKeys(db: DbTx) {
  return db.jwks.findMany({ select: { id: true, publicKey: true, alg: true, crv: true, expiresAt: true } });
}

/** What the consent page and the Connect page show of a client, or null for an unknown or disabled one. */
export async function findOAuthClient(db: DbTx, { clientId }: { clientId: string }) {
  const client = await db.oauthClient.findUnique({
    where: { clientId },
    select: {
      clientId: true,
      name: true,
      icon: true,
      uri: true,
      clientDiscoveryId: true,
      disabled: true,
      redirectUris: true,
      createdAt: true,
    },
  });
  return client && !client.disabled ? client : null;
}

/**
 * The live grant of this member to this client, its member still in the team, made no later than the access
 * token was issued (a token minted under a grant that was since revoked never counts for a newer one).
 */
export async function findActiveOAuthGrant(
  db: DbTx,
  { userId, clientId, issuedAt }: { userId: string; clientId: string; issuedAt: Date },
) {
  const grant = await db.personalAccessToken.findFirst({
    where: { kind: "oauth", userId, oauthClientId: clientId, revokedAt: null },
    orderBy: { createdAt: "desc" },
    select: { id: true, userId: true, teamId: true, mode: true, toolsetId: true, createdAt: true, expiresAt: true },
  });
  // Second precision: JWT iat is whole seconds.
  if (!grant || Math.floor(grant.createdAt.getTime() / 1000) > Math.floor(issuedAt.getTime() / 1000)) return null;
  const member = await db.membership.findUnique({
    where: { teamId_userId: { teamId: grant.teamId, userId: grant.userId } },
    select: { createdAt: true },
  });
  return member && grant.createdAt >= member.createdAt ? grant : null;
}

/** The member's live grant to a client, whatever its team (the consent page preselects its team and mode). */
export async function findOAuthGrantOfClient(db: DbTx, { userId, clientId }: { userId: string; clientId: string }) {
  return db.personalAccessToken.findFirst({
    where: { kind: "oauth", userId, oauthClientId: clientId, revokedAt: null },
    orderBy: { createdAt: "desc" },
    select: { id: true, teamId: true, mode: true, toolsetId: true },
  });
}

/**
 * Records the member's consent: the client reaches `teamId` in `mode`, or only the toolset `toolsetId` (checked by
 * the caller to be the member's own or the team's). An earlier grant of the same member to the
 * same client ends (one grant per client); its id is returned so its sessions can be ended everywhere.
 */
export async function grantOAuthClient(
  db: Db,
  g: {
    userId: string;
    teamId: string;
    clientId: string;
    clientName: string;
    mode: "all" | "router";
    toolsetId?: string | null;
  },
): Promise<{ id: string; replaced: string[] }> {
  return db.$transaction(async (tx) => {
    const earlier = await tx.personalAccessToken.findMany({
      where: { kind: "oauth", userId: g.userId, oauthClientId: g.clientId, revokedAt: null },
      select: { id: true },
    });
    if (earlier.length)
      await tx.personalAccessToken.updateMany({
        where: { id: { in: earlier.map((e) => e.id) } },
        data: { revokedAt: new Date() },
      });
    const row = await tx.personalAccessToken.create({
      data: {
        kind: "oauth",
        userId: g.userId,
        teamId: g.teamId,
        oauthClientId: g.clientId,
        name: g.clientName.slice(0, 80),
        mode: g.mode,
        toolsetId: g.toolsetId ?? null,
        prefix: GRANT_PREFIX,
        // Never handed out: the row is reached through access tokens, not through a secret of its own.
        tokenHash: sha256(`oauth-grant:${randomBytes(32).toString("base64url")}`),
      },
      select: { id: true },
    });
    return { id: row.id, replaced: earlier.map((e) => e.id) };
  });
}

/** The member's signed-in clients in one team, newest first, with what the client's metadata says about it. */
export async function listOAuthGrants(db: DbTx, { userId, teamId }: { userId: string; teamId: string }) {
  const grants = await db.personalAccessToken.findMany({
    where: { kind: "oauth", userId, teamId, revokedAt: null },
    select: {
      id: true,
      name: true,
      mode: true,
      oauthClientId: true,
      lastUsedAt: true,
      createdAt: true,
      toolset: { select: { id: true, name: true } },
    },
    orderBy: { createdAt: "desc" },
    take: 200,
  });
  const ids = [...new Set(grants.map((g) => g.oauthClientId).filter((c): c is string => !!c))];
  const clients = ids.length
    ? await db.oauthClient.findMany({
        where: { clientId: { in: ids } },
        select: { clientId: true, name: true, icon: true, uri: true, clientDiscoveryId: true },
      })
    : [];
  const byId = new Map(clients.map((c) => [c.clientId, c]));
  return grants.map((g) => {
    const client = g.oauthClientId ? byId.get(g.oauthClientId) : undefined;
    return {
      id: g.id,
      clientId: g.oauthClientId ?? "",
      name: client?.name ?? g.name,
      logoUri: client?.icon ?? null,
      clientUri: client?.uri ?? null,
      registration: client?.clientDiscoveryId ? ("metadata-document" as const) : ("dynamic" as const),
      mode: g.mode,
      toolset: g.toolset,
      lastUsedAt: g.lastUsedAt,
      createdAt: g.createdAt,
    };
  });
}

/**
 * Ends a grant and everything the client holds for it at the authorization server: refresh tokens (so it cannot
 * mint new access tokens) and the remembered consent (so signing in again asks again). Returns the client id,
 * or null when the grant is not the member's, not in this team, or already ended.
 */
export async function revokeOAuthGrant(
  db: Db,
  { userId, teamId, grantId }: { userId: string; teamId: string; grantId: string },
) {
  return db.$transaction(async (tx) => {
    const grant = await tx.personalAccessToken.findFirst({
      where: { id: grantId, kind: "oauth", userId, teamId, revokedAt: null },
      select: { oauthClientId: true },
    });
    if (!grant) return null;
    await tx.personalAccessToken.update({ where: { id: grantId }, data: { revokedAt: new Date() } });
    if (grant.oauthClientId) await forgetClientAuthorization(tx, { userId, clientId: grant.oauthClientId });
    return grant.oauthClientId ?? "";
  });
}

/** Clears what the authorization server keeps for a member and client: tokens and remembered consent. */
export async function forgetClientAuthorization(db: DbTx, { userId, clientId }: { userId: string; clientId: string }) {
  await db.oauthAccessToken.deleteMany({ where: { userId, clientId } });
  await db.oauthRefreshToken.deleteMany({ where: { userId, clientId } });
  await db.oauthConsent.deleteMany({ where: { userId, clientId } });
}

/** Ends every grant of the team given to dynamically registered clients (the admin turned them off). */
export async function revokeDynamicClientGrants(db: Db, { teamId }: { teamId: string }) {
  return db.$transaction(async (tx) => {
    const grants = await tx.personalAccessToken.findMany({
      where: { kind: "oauth", teamId, revokedAt: null },
      select: { id: true, userId: true, oauthClientId: true },
    });
    if (!grants.length) return [];
    const clientIds = [...new Set(grants.map((g) => g.oauthClientId).filter((c): c is string => !!c))];
    const metadataClients = new Set(
      (
        await tx.oauthClient.findMany({
          where: { clientId: { in: clientIds }, clientDiscoveryId: { not: null } },
          select: { clientId: true },
        })
      ).map((c) => c.clientId),
    );
    const dynamic = grants.filter((g) => !g.oauthClientId || !metadataClients.has(g.oauthClientId));
    if (!dynamic.length) return [];
    await tx.personalAccessToken.updateMany({
      where: { id: { in: dynamic.map((g) => g.id) } },
      data: { revokedAt: new Date() },
    });
    for (const g of dynamic)
      if (g.oauthClientId) await forgetClientAuthorization(tx, { userId: g.userId, clientId: g.oauthClientId });
    return dynamic.map((g) => g.id);
  });
}

export async function dynamicClientsAllowed(db: DbTx, { teamId }: { teamId: string }) {
  return (
    (await db.team.findUnique({ where: { id: teamId }, select: { oauthDynamicClientsAllowed: true } }))
      ?.oauthDynamicClientsAllowed ?? false
  );
}

export async function setDynamicClientsAllowed(db: DbTx, { teamId, allowed }: { teamId: string; allowed: boolean }) {
  await db.team.update({ where: { id: teamId }, data: { oauthDynamicClientsAllowed: allowed } });
}

/** Whether any team has an installation with this slug (a resource indicator may name its route). */
export async function installationSlugExists(db: DbTx, { slug }: { slug: string }) {
  return (await db.installation.count({ where: { slug } })) > 0;
}

/** Registers a per-server route as a protected resource of the authorization server (idempotent). */
export async function ensureOAuthResource(
  db: DbTx,
  { identifier, name, allowedScopes }: { identifier: string; name: string; allowedScopes: string[] },
) {
  await db.oauthResource.upsert({
    where: { identifier },
    create: {
      id: `res_${randomBytes(12).toString("hex")}`,
      identifier,
      name,
      allowedScopes,
      createdAt: new Date(),
      updatedAt: new Date(),
    },
    update: {},
  });
}

/**
 * Forgets the consent the authorization server remembers for a member and client when no grant of ours stands
 * behind it any more (revoked, or its member removed from the team or gone and invited again): the client then
 * gets the consent page instead of a code whose tokens the route would refuse.
 */
export async function forgetStaleConsent(db: DbTx, { userId, clientId }: { userId: string; clientId: string }) {
  const grants = await db.personalAccessToken.findMany({
    where: { kind: "oauth", userId, oauthClientId: clientId, revokedAt: null },
    select: { teamId: true, createdAt: true },
  });
  for (const grant of grants) {
    const member = await db.membership.findUnique({
      where: { teamId_userId: { teamId: grant.teamId, userId } },
      select: { createdAt: true },
    });
    if (member && grant.createdAt >= member.createdAt) return;
  }
  await db.oauthConsent.deleteMany({ where: { userId, clientId } });
}
