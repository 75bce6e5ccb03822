import type { Db } from "@switchboard/db/client";
import { looksLikeAccessToken } from "@switchboard/db/access-token-format";
import { sha256 } from "@switchboard/db/crypto";
import { findActiveAccessToken, touchAccessToken } from "@switchboard/db/queries/token";
import { cachedPrincipal, rememberPrincipal, shouldTouch } from "./token-cache";

/** For the MCP route: the principal behind a bearer token, or null (unknown, revoked, expired, member gone). */
export async function authenticate({ db, bearer }: { db: Db; bearer: string }) {
  if (!looksLikeAccessToken(bearer)) return null;
  const hash = sha256(bearer);
  let principal = cachedPrincipal(hash);
  if (!principal) {
    const token = await findActiveAccessToken(db, { tokenHash: hash });
    if (!token) return null;
    principal = {
      tokenId: token.id,
      userId: token.userId,
      teamId: token.teamId,
      mode: token.mode,
      toolsetId: token.toolsetId,
    };
    rememberPrincipal(hash, principal, token.expiresAt);
  }
  if (shouldTouch(principal.tokenId)) void touchAccessToken(db, { tokenId: principal.tokenId }).catch(() => undefined);
  return principal;
}
