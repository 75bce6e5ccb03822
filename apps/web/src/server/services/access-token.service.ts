import type { Db } from "@switchboard/db/client";
import { accessTokenDisplayPrefix, generateAccessToken } from "@switchboard/db/access-token-format";
import { sha256 } from "@switchboard/db/crypto";
import {
  insertAccessToken,
  listAccessTokens,
  revokeAccessToken,
  setAccessTokenMode,
} from "@switchboard/db/queries/access-tokens";
import { invalidateAccess } from "@switchboard/runtime/invalidations";
import { AppError } from "../errors";

/**
 * Personal access tokens: format in @switchboard/db/access-token-format; only the SHA-256 hash is stored. The
 * gateway authenticates them (`apps/gateway/src/auth`); revoking or changing one tells it through Redis.
 */
export async function list({ db, userId, teamId }: { db: Db; userId: string; teamId: string }) {
  return listAccessTokens(db, { userId, teamId });
}

export async function create({ db, userId, teamId, name, mode, expiresInDays }: { db: Db; userId: string; teamId: string; name: string; mode: "all" | "router"; expiresInDays: number | null }) {
  const token = generateAccessToken();
  const row = await insertAccessToken(db, {
    userId,
    teamId,
    name,
    mode,
    prefix: accessTokenDisplayPrefix(token),
    tokenHash: sha256(token),
    expiresAt: expiresInDays ? new Date(Date.now() + expiresInDays * 86_400_000) : null,
  });
  return { id: row.id, name: row.name, prefix: row.prefix, mode: row.mode, expiresAt: row.expiresAt, token };
}

export async function revoke({ db, userId, teamId, tokenId }: { db: Db; userId: string; teamId: string; tokenId: string }) {
  if (!(await revokeAccessToken(db, { userId, teamId, tokenId }))) throw new AppError("NOT_FOUND", "Token not found or already revoked.");
  await invalidateAccess({ tokenId });
}

export async function setMode({ db, userId, teamId, tokenId, mode }: { db: Db; userId: string; teamId: string; tokenId: string; mode: "all" | "router" }) {
  if (!(await setAccessTokenMode(db, { userId, teamId, tokenId, mode }))) throw new AppError("NOT_FOUND", "Token not found or revoked.");
  await invalidateAccess({ tokenId });
}
