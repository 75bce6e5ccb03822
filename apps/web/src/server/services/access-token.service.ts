import "server-only";
import { randomBytes } from "node:crypto";
import type { Db } from "@switchboard/db/client";
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

/**
 * Personal access tokens for MCP clients: `sbp_` + 40 base62 characters (~238 bits). Only the SHA-256 hash is
 * stored; the plaintext is returned once, at creation. The first 10 characters are kept as a recognisable prefix.
 */
export const TOKEN_PREFIX = "sbp_";
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export function generateToken(): string {
  const bytes = randomBytes(40);
  let out = TOKEN_PREFIX;
  // 40 bytes -> 40 characters; the modulo bias of 256 % 62 is negligible for a bearer secret of this length.
  for (const b of bytes) out += ALPHABET[b % 62];
  return out;
}

export function looksLikeToken(value: string): boolean {
  return value.startsWith(TOKEN_PREFIX) && /^[0-9A-Za-z]{40}$/.test(value.slice(TOKEN_PREFIX.length));
}

export async function list({ db, userId, teamId }: { db: Db; userId: string; teamId: string }) {
  return listAccessTokens(db, { userId, teamId });
}

export async function create({ db, userId, teamId, name, mode, expiresInDays }: { db: Db; userId: string; teamId: string; name: string; mode: "all" | "router"; expiresInDays: number | null }) {
  const token = generateToken();
  const row = await insertAccessToken(db, {
    userId,
    teamId,
    name,
    mode,
    prefix: token.slice(0, 10),
    tokenHash: sha256(token),
    expiresAt: expiresInDays ? new Date(Date.now() + expiresInDays * 86_400_000) : null,
  });
  return { id: row.id, name: row.name, prefix: row.prefix, mode: row.mode, expiresAt: row.expiresAt, token };
}

export async function revoke({ db, userId, teamId, tokenId }: { db: Db; userId: string; teamId: string; tokenId: string }) {
  if (!(await revokeAccessToken(db, { userId, teamId, tokenId }))) throw new AppError("NOT_FOUND", "Token not found or already revoked.");
}

export async function setMode({ db, userId, teamId, tokenId, mode }: { db: Db; userId: string; teamId: string; tokenId: string; mode: "all" | "router" }) {
  if (!(await setAccessTokenMode(db, { userId, teamId, tokenId, mode }))) throw new AppError("NOT_FOUND", "Token not found or revoked.");
}

/** For the MCP route: the principal behind a bearer token, or null (unknown, revoked, expired, member gone). */
export async function authenticate({ db, bearer }: { db: Db; bearer: string }) {
  if (!looksLikeToken(bearer)) return null;
  const token = await findActiveAccessToken(db, { tokenHash: sha256(bearer) });
  if (!token) return null;
  await touchAccessToken(db, { tokenId: token.id });
  return { tokenId: token.id, userId: token.userId, teamId: token.teamId, mode: token.mode };
}
