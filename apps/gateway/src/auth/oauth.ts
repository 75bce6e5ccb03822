import { decodeProtectedHeader, errors as joseErrors, importJWK, jwtVerify, type CryptoKey, type JWK } from "jose";
import type { Db } from "@switchboard/db/client";
import { sha256 } from "@switchboard/db/crypto";
import { touchAccessToken } from "@switchboard/db/queries/token";
import { findActiveOAuthGrant, listSigningKeys } from "@switchboard/db/queries/oauth-grant";
import { issuerUrl, mcpResourceUrl } from "@switchboard/runtime/mcp-authorization";
import { cachedPrincipal, rememberPrincipal, shouldTouch, type Principal } from "./token-cache";

/**
 * MCP clients that signed in with OAuth: the console (Better Auth) is the authorization server; here the route
 * verifies an access token against its signing keys (the jwks table), for the resource it was issued for, and
 * finds the member's grant behind it (a token row of kind `oauth`), which from then on is treated exactly like a
 * personal access token (same principal, cache, invalidations, sessions and request log).
 */

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export function looksLikeJwt(bearer: string): boolean {
  return bearer.length < 8192 && JWT_SHAPE.test(bearer);
}

/** Verification keys by id, read from the jwks table; re-read when a token names a key not seen yet. */
const keys: { byId: Map<string, CryptoKey | Uint8Array>; loadedAt: number } = { byId: new Map(), loadedAt: 0 };
const KEY_RELOAD_MIN_MS = 5_000;

async function keyFor(db: Db, kid: string): Promise<CryptoKey | Uint8Array | null> {
  const known = keys.byId.get(kid);
  if (known) return known;
  if (Date.now() - keys.loadedAt < KEY_RELOAD_MIN_MS) return null;
  keys.loadedAt = Date.now();
  for (const row of await listSigningKeys(db)) {
    if (keys.byId.has(row.id)) continue;
    try {
      const jwk = JSON.parse(row.publicKey) as JWK;
      keys.byId.set(row.id, await importJWK({ ...jwk, kid: row.id }, row.alg ?? jwk.alg ?? "EdDSA"));
    } catch {
      // A key we cannot read verifies nothing.
    }
  }
  return keys.byId.get(kid) ?? null;
}

export type OAuthAuthResult =
  { ok: true; principal: Principal } | { ok: false; reason: "invalid" | "audience" | "revoked" };

/**
 * The principal behind an OAuth access token presented at `resource` (RFC 8707: a token for the whole route does
 * not open one installation's route, nor the other way round), or why not.
 */
export async function authenticateOAuth({
  db,
  bearer,
  appUrl,
  scope,
}: {
  db: Db;
  bearer: string;
  appUrl: string;
  scope: string | null;
}): Promise<OAuthAuthResult> {
  const resource = mcpResourceUrl(appUrl, scope);
  const cacheKey = sha256(`${resource}\n${bearer}`);
  const cached = cachedPrincipal(cacheKey);
  if (cached) return touched(db, cached);

  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(bearer).kid;
  } catch {
    return { ok: false, reason: "invalid" };
  }
  if (!kid) return { ok: false, reason: "invalid" };
  const key = await keyFor(db, kid);
  if (!key) return { ok: false, reason: "invalid" };
  let payload;
  try {
    ({ payload } = await jwtVerify(bearer, key, {
      issuer: issuerUrl(appUrl),
      audience: resource,
      requiredClaims: ["sub", "iat", "exp"],
    }));
  } catch (err) {
    return {
      ok: false,
      reason: err instanceof joseErrors.JWTClaimValidationFailed && err.claim === "aud" ? "audience" : "invalid",
    };
  }
  const clientId =
    typeof payload.azp === "string" ? payload.azp : typeof payload.client_id === "string" ? payload.client_id : null;
  if (!clientId || typeof payload.sub !== "string") return { ok: false, reason: "invalid" };
  const grant = await findActiveOAuthGrant(db, {
    userId: payload.sub,
    clientId,
    issuedAt: new Date(payload.iat! * 1000),
  });
  if (!grant) return { ok: false, reason: "revoked" };
  const principal: Principal = {
    tokenId: grant.id,
    userId: grant.userId,
    teamId: grant.teamId,
    mode: grant.mode,
    toolsetId: grant.toolsetId,
  };
  rememberPrincipal(cacheKey, principal, new Date(payload.exp! * 1000));
  return touched(db, principal);
}

function touched(db: Db, principal: Principal): OAuthAuthResult {
  if (shouldTouch(principal.tokenId)) void touchAccessToken(db, { tokenId: principal.tokenId }).catch(() => undefined);
  return { ok: true, principal };
}
