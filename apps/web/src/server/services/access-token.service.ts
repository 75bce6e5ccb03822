import type { Db } from "@switchboard/db/client";
import { accessTokenDisplayPrefix, generateAccessToken, looksLikeAccessToken } from "@switchboard/db/access-token-format";
import { sha256 } from "@switchboard/db/crypto";
import {
  findActiveAccessToken,
  insertAccessToken,
  listAccessTokens,
  revokeAccessToken,
  setAccessTokenMode,
  touchAccessToken,
} from "@switchboard/db/queries/access-tokens";
import { AppError } from "../errors";
import { cachedPrincipal, invalidateAccess, rememberPrincipal, shouldTouch } from "./token-cache";

/** Personal access tokens: format in @switchboard/db/access-token-format; only the SHA-256 hash is stored. */
export async function list({ db, userId, teamId }: { db: Db; userId: string; teamId: string }) {
  return listAccessTokens(db, { userId, teamId });
}

export async function create({ db, userId, teamId, name, mode, expiresInDays, toolsetId = null }: { db: Db; userId: string; teamId: string; name: string; mode: "all" | "router"; expiresInDays: number | null; toolsetId?: string | null }) {
  if (toolsetId) {
    // The member's own toolset or the team's; another member's is "not found" like one that does not exist.
    const set = await db.toolset.findFirst({ where: { id: toolsetId, teamId, OR: [{ ownerId: userId }, { ownerId: null }] }, select: { id: true } });
    if (!set) throw new AppError("NOT_FOUND", "Toolset not found.");
  }
  const token = generateAccessToken();
  const row = await insertAccessToken(db, {
    userId,
    teamId,
    name,
    mode,
    toolsetId,
    prefix: accessTokenDisplayPrefix(token),
    tokenHash: sha256(token),
    expiresAt: expiresInDays ? new Date(Date.now() + expiresInDays * 86_400_000) : null,
  });
  return { id: row.id, name: row.name, prefix: row.prefix, mode: row.mode, expiresAt: row.expiresAt, toolsetId: row.toolsetId, token };
}

export async function revoke({ db, userId, teamId, tokenId }: { db: Db; userId: string; teamId: string; tokenId: string }) {
  if (!(await revokeAccessToken(db, { userId, teamId, tokenId }))) throw new AppError("NOT_FOUND", "Token not found or already revoked.");
  await invalidateAccess({ tokenId });
}

export async function setMode({ db, userId, teamId, tokenId, mode }: { db: Db; userId: string; teamId: string; tokenId: string; mode: "all" | "router" }) {
  if (!(await setAccessTokenMode(db, { userId, teamId, tokenId, mode }))) throw new AppError("NOT_FOUND", "Token not found or revoked.");
  await invalidateAccess({ tokenId });
}

/** For the MCP route: the principal behind a bearer token, or null (unknown, revoked, expired, member gone). */
export async function authenticate({ db, bearer }: { db: Db; bearer: string }) {
  if (!looksLikeAccessToken(bearer)) return null;
  const hash = sha256(bearer);
  let principal = cachedPrincipal(hash);
  if (!principal) {
    const token = await findActiveAccessToken(db, { tokenHash: hash });
    if (!token) return null;
    principal = { tokenId: token.id, userId: token.userId, teamId: token.teamId, mode: token.mode, toolsetId: token.toolsetId };
    rememberPrincipal(hash, principal, token.expiresAt);
  }
  if (shouldTouch(principal.tokenId)) void touchAccessToken(db, { tokenId: principal.tokenId }).catch(() => undefined);
  return principal;
}
