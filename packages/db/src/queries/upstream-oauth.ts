import type { OAuthClientStore, OAuthTokenSet } from "@switchboard/core/oauth";
import type { DbTx } from "../client";
import type { Cipher } from "../crypto";

type OAuthClientInformationMixed = NonNullable<Awaited<ReturnType<OAuthClientStore["clientInformation"]>>>;

// ---------------------------------------------------------------------------------------------------------------
// The installation's OAuth client (pre-registered by the admin, or registered dynamically on first use)
// ---------------------------------------------------------------------------------------------------------------

/**
 * core's OAuthClientStore over an installation row. The admin's pre-registered client id/secret wins; a dynamic
 * registration is kept encrypted and only written when none is stored yet, so two members registering at the
 * same moment end up on one client (the first).
 */
export function installationOAuthClients(db: DbTx, cipher: Cipher, installationId: string): OAuthClientStore {
  return {
    async clientInformation() {
      const row = await db.installation.findUnique({
        where: { id: installationId },
        select: { oauthClientId: true, oauthClientSecretEnc: true, oauthClientInfoEnc: true },
      });
      if (!row) return undefined;
      if (row.oauthClientId) {
        return {
          client_id: row.oauthClientId,
          ...(row.oauthClientSecretEnc ? { client_secret: cipher.decrypt(row.oauthClientSecretEnc) } : {}),
        };
      }
      return row.oauthClientInfoEnc
        ? (JSON.parse(cipher.decrypt(row.oauthClientInfoEnc)) as OAuthClientInformationMixed)
        : undefined;
    },
    async saveClientInformation(info) {
      const row = await db.installation.findUnique({
        where: { id: installationId },
        select: { oauthClientId: true, oauthClientInfoEnc: true },
      });
      if (!row || row.oauthClientId) return; // the admin's client is not replaced by a registration
      const sealed = cipher.encrypt(JSON.stringify(info));
      if (!row.oauthClientInfoEnc) {
        await db.installation.updateMany({
          where: { id: installationId, oauthClientInfoEnc: null },
          data: { oauthClientInfoEnc: sealed },
        });
        return;
      }
      // The same client stamped with its authorization server by the SDK: keep the richer copy. A client of
      // another authorization server (the upstream moved to a new one, which the SDK registered with) replaces
      // it: credentials are kept per issuer, and the old server's client is of no use at the new one.
      const current = JSON.parse(cipher.decrypt(row.oauthClientInfoEnc)) as OAuthClientInformationMixed;
      const issuerOf = (client: OAuthClientInformationMixed) => (client as { issuer?: unknown }).issuer;
      const moved = typeof issuerOf(current) === "string" && issuerOf(current) !== issuerOf(info);
      if (current.client_id === info.client_id || moved) {
        await db.installation.updateMany({
          where: { id: installationId, oauthClientInfoEnc: row.oauthClientInfoEnc },
          data: { oauthClientInfoEnc: sealed },
        });
      }
    },
    async forgetClientInformation() {
      await db.installation.updateMany({ where: { id: installationId }, data: { oauthClientInfoEnc: null } });
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// A member's tokens for one instance
// ---------------------------------------------------------------------------------------------------------------

export interface StoredOAuthTokens extends OAuthTokenSet {
  /** Version for compare-and-set writes (the row's updatedAt). */
  version: Date;
  /** What the upstream asked for beyond the grant (403 insufficient_scope), until the member authorizes again. */
  neededScope?: string;
}

export async function loadOAuthTokens(
  db: DbTx,
  cipher: Cipher,
  instanceId: string,
): Promise<StoredOAuthTokens | undefined> {
  const row = await db.upstreamOAuthToken.findUnique({ where: { instanceId } });
  if (!row) return undefined;
  return {
    accessToken: cipher.decrypt(row.accessTokenEnc),
    refreshToken: row.refreshTokenEnc ? cipher.decrypt(row.refreshTokenEnc) : undefined,
    tokenType: row.tokenType,
    scope: row.scope ?? undefined,
    neededScope: row.neededScope ?? undefined,
    expiresAt: row.expiresAt ?? undefined,
    obtainedAt: row.updatedAt,
    version: row.updatedAt,
  };
}

export async function hasOAuthTokens(db: DbTx, instanceId: string): Promise<boolean> {
  return (await db.upstreamOAuthToken.count({ where: { instanceId } })) > 0;
}

function sealTokens(cipher: Cipher, tokens: OAuthTokenSet) {
  return {
    accessTokenEnc: cipher.encrypt(tokens.accessToken),
    refreshTokenEnc: tokens.refreshToken ? cipher.encrypt(tokens.refreshToken) : null,
    tokenType: tokens.tokenType,
    scope: tokens.scope ?? null,
    expiresAt: tokens.expiresAt ?? null,
  };
}

/** A member's fresh authorization: replaces whatever was stored for the instance. */
export async function storeOAuthTokens(
  db: DbTx,
  cipher: Cipher,
  input: { instanceId: string; userId: string; tokens: OAuthTokenSet },
): Promise<void> {
  // A new grant: whatever a step-up asked for was asked for in it.
  const data = { ...sealTokens(cipher, input.tokens), neededScope: null };
  await db.upstreamOAuthToken.upsert({
    where: { instanceId: input.instanceId },
    create: { instanceId: input.instanceId, userId: input.userId, ...data },
    update: { ...data, userId: input.userId },
  });
}

/**
 * A refresh result, written only if the row is still the version the refresh started from: false means someone
 * else (a re-authorization, another refresh) wrote meanwhile and their tokens stand.
 */
export async function replaceRefreshedTokens(
  db: DbTx,
  cipher: Cipher,
  input: { instanceId: string; version: Date; tokens: OAuthTokenSet },
): Promise<boolean> {
  const { count } = await db.upstreamOAuthToken.updateMany({
    where: { instanceId: input.instanceId, updatedAt: input.version },
    data: sealTokens(cipher, input.tokens),
  });
  return count === 1;
}

/**
 * Keeps the scope an upstream asked for with 403 insufficient_scope, for the member's next authorization. The
 * row's version (updatedAt, also when the token was obtained) stays as it was: this is no new token.
 */
export async function recordNeededScope(db: DbTx, input: { instanceId: string; scope: string }): Promise<void> {
  const row = await db.upstreamOAuthToken.findUnique({
    where: { instanceId: input.instanceId },
    select: { updatedAt: true },
  });
  if (!row) return;
  await db.upstreamOAuthToken.updateMany({
    where: { instanceId: input.instanceId, updatedAt: row.updatedAt },
    data: { neededScope: input.scope.slice(0, 1000), updatedAt: row.updatedAt },
  });
}

export async function deleteOAuthTokens(db: DbTx, instanceId: string): Promise<void> {
  await db.upstreamOAuthToken.deleteMany({ where: { instanceId } });
}

// ---------------------------------------------------------------------------------------------------------------
// Pending console authorizations (state + PKCE verifier), single use, short-lived
// ---------------------------------------------------------------------------------------------------------------

export async function createPendingFlow(
  db: DbTx,
  cipher: Cipher,
  input: {
    state: string;
    instanceId: string;
    userId: string;
    codeVerifier: string;
    redirectUri: string;
    /** The issuer `startAuthorization` returned. */
    issuer: string;
    expiresAt: Date;
  },
): Promise<void> {
  await db.oAuthPendingFlow.create({
    data: {
      state: input.state,
      instanceId: input.instanceId,
      userId: input.userId,
      codeVerifierEnc: cipher.encrypt(input.codeVerifier),
      redirectUri: input.redirectUri,
      issuer: input.issuer,
      expiresAt: input.expiresAt,
    },
  });
}

export type ConsumedFlow =
  | { ok: true; instanceId: string; codeVerifier: string; redirectUri: string; issuer: string | null }
  | { ok: false; reason: "unknown" | "used" | "expired" | "other_user"; instanceId?: string };

/**
 * Uses a state once: one conditional UPDATE marks it used only if it is unused, unexpired and the caller's,
 * so a replay (even a concurrent one) finds it used. A state presented by another user is left untouched.
 */
export async function consumePendingFlow(
  db: DbTx,
  cipher: Cipher,
  input: { state: string; userId: string; now: Date },
): Promise<ConsumedFlow> {
  const { count } = await db.oAuthPendingFlow.updateMany({
    where: { state: input.state, userId: input.userId, usedAt: null, expiresAt: { gt: input.now } },
    data: { usedAt: input.now },
  });
  const row = await db.oAuthPendingFlow.findUnique({ where: { state: input.state } });
  if (!row) return { ok: false, reason: "unknown" };
  if (count === 1)
    return {
      ok: true,
      instanceId: row.instanceId,
      codeVerifier: cipher.decrypt(row.codeVerifierEnc),
      redirectUri: row.redirectUri,
      issuer: row.issuer,
    };
  if (row.userId !== input.userId) return { ok: false, reason: "other_user" };
  if (row.usedAt) return { ok: false, reason: "used", instanceId: row.instanceId };
  return { ok: false, reason: "expired", instanceId: row.instanceId };
}

/** Housekeeping: flows expired or used before `before` are of no use to anyone. */
export async function deleteStalePendingFlows(db: DbTx, before: Date): Promise<number> {
  const { count } = await db.oAuthPendingFlow.deleteMany({
    where: { OR: [{ expiresAt: { lt: before } }, { usedAt: { lt: before } }] },
  });
  return count;
}

// ---------------------------------------------------------------------------------------------------------------
// Lookups for the console's OAuth flow
// ---------------------------------------------------------------------------------------------------------------

/** An instance of the team, with what the OAuth flow needs to decide and to redirect back. */
export async function findTeamInstanceForOAuth(db: DbTx, input: { teamId?: string; instanceId: string }) {
  return db.instance.findFirst({
    where: { id: input.instanceId, ...(input.teamId ? { installation: { teamId: input.teamId } } : {}) },
    select: {
      id: true,
      userId: true,
      status: true,
      installation: {
        select: {
          id: true,
          name: true,
          teamId: true,
          team: { select: { slug: true } },
          template: { select: { transport: true, oauth: true } },
        },
      },
    },
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The admin's pre-registered client, as the console reads and writes it
// ---------------------------------------------------------------------------------------------------------------

/** The installation's pre-registered client without its secret (only whether one is stored), or undefined. */
export async function findInstallationOAuthClient(db: DbTx, input: { teamId: string; installationId: string }) {
  const row = await db.installation.findFirst({
    where: { id: input.installationId, teamId: input.teamId },
    select: { oauthClientId: true, oauthClientSecretEnc: true, template: { select: { oauth: true } } },
  });
  if (!row) return undefined;
  return { oauth: row.template.oauth, clientId: row.oauthClientId, secretSet: row.oauthClientSecretEnc !== null };
}

/**
 * Sets the admin's client (`secret` undefined keeps the stored one, null removes it) or, with `clientId` null,
 * clears it. Either way the stored dynamic registration is dropped, so the next flow uses the new client (or
 * registers afresh); members' tokens are left alone until they fail. False when the installation is not the team's.
 */
export async function writeInstallationOAuthClient(
  db: DbTx,
  cipher: Cipher,
  input: { teamId: string; installationId: string; clientId: string | null; secret?: string | null },
): Promise<boolean> {
  const secret =
    input.clientId === null || input.secret === null
      ? { oauthClientSecretEnc: null }
      : input.secret === undefined
        ? {}
        : { oauthClientSecretEnc: cipher.encrypt(input.secret) };
  const { count } = await db.installation.updateMany({
    where: { id: input.installationId, teamId: input.teamId },
    data: { oauthClientId: input.clientId, ...secret, oauthClientInfoEnc: null },
  });
  return count === 1;
}
