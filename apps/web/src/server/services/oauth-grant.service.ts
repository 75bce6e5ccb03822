import { importJWK, jwtVerify, decodeProtectedHeader, errors as joseErrors, type CryptoKey, type JWK } from "jose";
import type { Db } from "@switchboard/db/client";
import { sha256 } from "@switchboard/db/crypto";
import {
  dynamicClientsAllowed,
  findActiveOAuthGrant,
  findOAuthClient,
  findOAuthGrantOfClient,
  grantOAuthClient,
  listOAuthGrants,
  listSigningKeys,
  revokeDynamicClientGrants,
  revokeOAuthGrant,
  setDynamicClientsAllowed,
} from "@switchboard/db/queries/oauth-grants";
import { listTeamsForUser } from "@switchboard/db/queries/teams";
import { issuerUrl, mcpResourceUrl } from "../auth/mcp-authorization";
import { AppError } from "../errors";
import { cachedPrincipal, invalidateAccess, rememberPrincipal, shouldTouch, type Principal } from "./token-cache";
import { touchAccessToken } from "@switchboard/db/queries/access-tokens";

/**
 * MCP clients that signed in with OAuth. Better Auth (in the console) runs the protocol; this service is what
 * the route and the console need around it: verifying an access token against the authorization server's keys
 * and finding the member's grant behind it (a token row of kind `oauth`, so the rest of the route treats it as a
 * personal token), and the consent page's and Connect page's operations on grants.
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

export type OAuthAuthResult = { ok: true; principal: Principal } | { ok: false; reason: "invalid" | "audience" | "revoked" };

/**
 * The principal behind an OAuth access token presented at `resource` (RFC 8707: a token for the whole route does
 * not open one installation's route, nor the other way round), or why not.
 */
export async function authenticateOAuth({ db, bearer, appUrl, scope }: { db: Db; bearer: string; appUrl: string; scope: string | null }): Promise<OAuthAuthResult> {
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
    ({ payload } = await jwtVerify(bearer, key, { issuer: issuerUrl(appUrl), audience: resource, requiredClaims: ["sub", "iat", "exp"] }));
  } catch (err) {
    return { ok: false, reason: err instanceof joseErrors.JWTClaimValidationFailed && err.claim === "aud" ? "audience" : "invalid" };
  }
  const clientId = typeof payload.azp === "string" ? payload.azp : typeof payload.client_id === "string" ? payload.client_id : null;
  if (!clientId || typeof payload.sub !== "string") return { ok: false, reason: "invalid" };
  const grant = await findActiveOAuthGrant(db, { userId: payload.sub, clientId, issuedAt: new Date(payload.iat! * 1000) });
  if (!grant) return { ok: false, reason: "revoked" };
  const principal: Principal = { tokenId: grant.id, userId: grant.userId, teamId: grant.teamId, mode: grant.mode };
  rememberPrincipal(cacheKey, principal, new Date(payload.exp! * 1000));
  return touched(db, principal);
}

function touched(db: Db, principal: Principal): OAuthAuthResult {
  if (shouldTouch(principal.tokenId)) void touchAccessToken(db, { tokenId: principal.tokenId }).catch(() => undefined);
  return { ok: true, principal };
}

/** What the consent page shows: the client, the member's teams (with whether each accepts this client), the earlier grant. */
export async function consentContext({ db, userId, clientId }: { db: Db; userId: string; clientId: string }) {
  const client = await findOAuthClient(db, { clientId });
  if (!client) throw new AppError("NOT_FOUND", "This application is not registered with Switchboard, or it was removed.");
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
    client: { clientId: client.clientId, name: client.name ?? "An unnamed application", logoUri: client.icon, clientUri: client.uri, registration, redirectUris: client.redirectUris },
    teams: withPolicy,
    earlier: earlier ? { teamId: earlier.teamId, mode: earlier.mode } : null,
  };
}

/** The member allows the client into one of their teams; the provider's consent follows on the page. */
export async function approve({ db, userId, clientId, teamId, mode }: { db: Db; userId: string; clientId: string; teamId: string; mode: "all" | "router" }) {
  const context = await consentContext({ db, userId, clientId });
  const team = context.teams.find((t) => t.id === teamId);
  if (!team) throw new AppError("NOT_FOUND", "Team not found.");
  if (!team.allowed) throw new AppError("FORBIDDEN", `${team.name} does not accept applications that registered themselves; ask a team admin, or use a personal access token.`);
  const { id, replaced } = await grantOAuthClient(db, { userId, teamId, clientId, clientName: context.client.name, mode });
  for (const tokenId of replaced) await invalidateAccess({ tokenId });
  return { grantId: id };
}

export async function list({ db, userId, teamId }: { db: Db; userId: string; teamId: string }) {
  return listOAuthGrants(db, { userId, teamId });
}

export async function revoke({ db, userId, teamId, grantId }: { db: Db; userId: string; teamId: string; grantId: string }) {
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
