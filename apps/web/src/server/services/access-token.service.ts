import type { Db } from "@switchboard/db/client";
import {
  issueAccessToken,
  listAccessTokens,
  revokeAccessToken,
  setAccessTokenMode,
} from "@switchboard/db/queries/token";
import { findToolsetOfMember } from "@switchboard/db/queries/toolset";
import { invalidateAccess } from "@switchboard/runtime/invalidations";
import { AppError } from "../errors";
import type { Actor } from "./actor";

/**
 * Personal access tokens: format in @switchboard/db/access-token-format; only the SHA-256 hash is stored. The
 * gateway authenticates them (`apps/gateway/src/auth`); revoking or changing one tells it through Redis.
 */
export async function list({ db, actor }: { db: Db; actor: Actor }) {
  const { userId, teamId } = actor;
  return listAccessTokens(db, { userId, teamId });
}

export async function create({
  db,
  actor,
  name,
  mode,
  expiresInDays,
  toolsetId = null,
}: {
  db: Db;
  actor: Actor;
  name: string;
  mode: "all" | "router";
  expiresInDays: number | null;
  toolsetId?: string | null;
}) {
  const { userId, teamId } = actor;
  if (toolsetId) {
    // The member's own toolset or the team's; another member's is "not found" like one that does not exist.
    if (!(await findToolsetOfMember(db, { teamId, userId, toolsetId })))
      throw new AppError("NOT_FOUND", "Toolset not found.");
  }
  const { row, token } = await issueAccessToken(db, {
    userId,
    teamId,
    name,
    mode,
    toolsetId,
    expiresAt: expiresInDays ? new Date(Date.now() + expiresInDays * 86_400_000) : null,
  });
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    mode: row.mode,
    expiresAt: row.expiresAt,
    toolsetId: row.toolsetId,
    token,
  };
}

export async function revoke({ db, actor, tokenId }: { db: Db; actor: Actor; tokenId: string }) {
  const { userId, teamId } = actor;
  if (!(await revokeAccessToken(db, { userId, teamId, tokenId })))
    throw new AppError("NOT_FOUND", "Token not found or already revoked.");
  await invalidateAccess({ tokenId });
}

export async function setMode({
  db,
  actor,
  tokenId,
  mode,
}: {
  db: Db;
  actor: Actor;
  tokenId: string;
  mode: "all" | "router";
}) {
  const { userId, teamId } = actor;
  if (!(await setAccessTokenMode(db, { userId, teamId, tokenId, mode })))
    throw new AppError("NOT_FOUND", "Token not found or revoked.");
  await invalidateAccess({ tokenId });
}
