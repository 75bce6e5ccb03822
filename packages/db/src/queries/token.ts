import { accessTokenDisplayPrefix, generateAccessToken } from "../access-token-format";
import type { DbTx } from "../client";
import { sha256 } from "../crypto";

export async function listAccessTokens(db: DbTx, { userId, teamId }: { userId: string; teamId: string }) {
  return db.personalAccessToken.findMany({
    // Grants to OAuth clients are listed as signed-in clients (queries/oauth-grant.ts), not as tokens.
    where: { userId, teamId, kind: "personal" },
    select: {
      id: true,
      name: true,
      prefix: true,
      mode: true,
      lastUsedAt: true,
      createdAt: true,
      revokedAt: true,
      expiresAt: true,
      toolset: { select: { id: true, name: true } },
    },
    orderBy: [{ revokedAt: { sort: "asc", nulls: "first" } }, { createdAt: "desc" }],
    take: 200,
  });
}

/**
 * A new personal access token: the secret is made here (`access-token-format`) and returned once, with the row;
 * only its SHA-256 hash and display prefix are stored.
 */
export async function issueAccessToken(
  db: DbTx,
  t: {
    userId: string;
    teamId: string;
    name: string;
    mode: "all" | "router";
    expiresAt: Date | null;
    toolsetId?: string | null;
  },
) {
  const token = generateAccessToken();
  const row = await db.personalAccessToken.create({
    data: { ...t, prefix: accessTokenDisplayPrefix(token), tokenHash: sha256(token) },
  });
  return { row, token };
}

export async function revokeAccessToken(
  db: DbTx,
  { userId, teamId, tokenId }: { userId: string; teamId: string; tokenId: string },
) {
  const { count } = await db.personalAccessToken.updateMany({
    where: { id: tokenId, userId, teamId, revokedAt: null, kind: "personal" },
    data: { revokedAt: new Date() },
  });
  return count > 0;
}

export async function setAccessTokenMode(
  db: DbTx,
  { userId, teamId, tokenId, mode }: { userId: string; teamId: string; tokenId: string; mode: "all" | "router" },
) {
  const { count } = await db.personalAccessToken.updateMany({
    where: { id: tokenId, userId, teamId, revokedAt: null, kind: "personal" },
    data: { mode },
  });
  return count > 0;
}

/**
 * The live token with this hash, with its member still in the team: a revoked or expired token, or one whose
 * owner left the team, finds nothing.
 */
export async function findActiveAccessToken(db: DbTx, { tokenHash }: { tokenHash: string }) {
  const token = await db.personalAccessToken.findUnique({
    where: { tokenHash },
    select: {
      id: true,
      userId: true,
      teamId: true,
      mode: true,
      toolsetId: true,
      revokedAt: true,
      expiresAt: true,
      lastUsedAt: true,
      name: true,
      createdAt: true,
      kind: true,
    },
  });
  if (
    !token ||
    token.kind !== "personal" ||
    token.revokedAt ||
    (token.expiresAt && token.expiresAt.getTime() <= Date.now())
  )
    return null;
  const member = await db.membership.findUnique({
    where: { teamId_userId: { teamId: token.teamId, userId: token.userId } },
    select: { createdAt: true },
  });
  // A token from an earlier membership never comes back with a new one (removed, then invited again).
  return member && token.createdAt >= member.createdAt ? token : null;
}

/** Records use at most once a minute per token, so a busy client does not write on every request. */
export async function touchAccessToken(db: DbTx, { tokenId, now = new Date() }: { tokenId: string; now?: Date }) {
  await db.personalAccessToken.updateMany({
    where: { id: tokenId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now.getTime() - 60_000) } }] },
    data: { lastUsedAt: now },
  });
}
