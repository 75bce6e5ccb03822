import "server-only";
import { MissingConfigError } from "@switchboard/core/config";
import { humanizeError } from "@switchboard/core/errors";
import {
  clientMetadataUrlFor,
  finishAuthorization,
  OAUTH_POLICY,
  OAuthNotOfferedError,
  OAuthStartTimeoutError,
  startAuthorization,
  stepUpScope,
} from "@switchboard/core/oauth";
import type { Db } from "@switchboard/db/client";
import { getCipher } from "@switchboard/db/crypto";
import { loadInstanceLaunch } from "@switchboard/db/launch";
import {
  type ConsumedFlow,
  consumePendingFlow,
  createPendingFlow,
  findTeamInstanceForOAuth,
  installationOAuthClients,
  loadOAuthTokens,
  storeOAuthTokens,
} from "@switchboard/db/queries/upstream-oauth";
import { egressRefusalOf } from "@switchboard/core/egress";
import { env } from "@switchboard/runtime/env";
import { upstreamEgressFetch } from "@switchboard/runtime/egress";
import { AppError } from "../errors";
import type { Actor } from "../services/actor";
import { enqueueOAuth } from "@switchboard/runtime/jobs";
import { announceOAuthTokensChanged } from "@switchboard/runtime/invalidations";
import { logger } from "@switchboard/runtime/logger";

const CALLBACK_PATH = "/api/oauth/callback";

export function callbackUrl(): string {
  return new URL(CALLBACK_PATH, env().APP_URL).href;
}

/** Where an upstream lives, resolved like a connection would be (member values, query parameters, headers). */
async function upstreamOf(db: Db, instanceId: string) {
  const loaded = await loadInstanceLaunch(db, getCipher(), instanceId).catch((err: unknown) => {
    if (err instanceof MissingConfigError)
      throw new AppError("INVALID_INPUT", "Fill in your settings for this server before connecting it.", {
        cause: err,
      });
    throw err;
  });
  if (!loaded) throw new AppError("NOT_FOUND", "Server instance not found.");
  const { ctx, launch } = loaded;
  if (launch.transport === "stdio")
    throw new AppError("INVALID_INPUT", "This server runs locally and does not use OAuth.");
  return { ctx, serverUrl: launch.url, headers: launch.headers };
}

/**
 * Starts an authorization for the caller's own instance (admins included: OAuth is per member). The state and
 * PKCE verifier wait in a pending flow for 10 minutes; the URL goes back to the browser.
 */
export async function startOAuth(opts: {
  db: Db;
  actor: Actor;
  instanceId: string;
  now?: Date;
}): Promise<{ authorizationUrl: string; expiresAt: Date }> {
  const instance = await findTeamInstanceForOAuth(opts.db, { teamId: opts.actor.teamId, instanceId: opts.instanceId });
  // Someone else's instance is as absent as another team's: nobody authorizes on a teammate's behalf.
  if (!instance || instance.userId !== opts.actor.userId) throw new AppError("NOT_FOUND", "Server instance not found.");
  const { serverUrl, headers, ctx } = await upstreamOf(opts.db, instance.id);
  const cipher = getCipher();
  const redirectUrl = callbackUrl();
  // A step-up: the upstream asked for more than was granted; ask for both, so other calls keep what they had.
  const granted = await loadOAuthTokens(opts.db, cipher, instance.id);
  const scope = granted?.neededScope ? stepUpScope(granted.scope, granted.neededScope) : undefined;
  let started;
  try {
    started = await startAuthorization({
      serverUrl,
      headers,
      redirectUrl,
      clientMetadataUrl: clientMetadataUrlFor(env().APP_URL),
      clients: installationOAuthClients(opts.db, cipher, ctx.installation.id),
      fetch: upstreamEgressFetch(),
      scope,
    });
  } catch (err) {
    const refused = egressRefusalOf(err);
    if (refused) throw new AppError("INVALID_INPUT", refused.message, { cause: err });
    if (err instanceof OAuthNotOfferedError)
      throw new AppError(
        "INVALID_INPUT",
        `${instance.installation.name} does not offer OAuth: it publishes no OAuth metadata. An admin can check its URL, or use an API key setting instead.`,
        { cause: err },
      );
    logger.warn(
      { err: err instanceof Error ? err.message : String(err), instanceId: instance.id },
      "could not start an OAuth authorization",
    );
    if (err instanceof OAuthStartTimeoutError)
      throw new AppError(
        "UPSTREAM_UNAVAILABLE",
        `${instance.installation.name} did not answer the authorization in time. Try again later.`,
        { cause: err },
      );
    throw new AppError(
      "UPSTREAM_UNAVAILABLE",
      `Could not start the authorization with ${instance.installation.name}: ${humanizeError(err).summary}`,
      { cause: err },
    );
  }
  const expiresAt = new Date((opts.now ?? new Date()).getTime() + OAUTH_POLICY.pendingFlowTtlMs);
  await createPendingFlow(opts.db, cipher, {
    state: started.state,
    instanceId: instance.id,
    userId: opts.actor.userId,
    codeVerifier: started.codeVerifier,
    redirectUri: redirectUrl,
    issuer: started.issuer,
    expiresAt,
  });
  return { authorizationUrl: started.authorizationUrl, expiresAt };
}

export type CallbackOutcome =
  | { ok: true; instanceId: string; teamSlug: string; serverName: string }
  | { ok: false; message: string; teamSlug?: string; instanceId?: string };

const REFUSED: Record<Exclude<ConsumedFlow, { ok: true }>["reason"], string> = {
  unknown: "This authorization link is not valid. Start again from the console.",
  used: "This authorization was already used. Start again from the console.",
  expired: "This authorization expired (they last 10 minutes). Start again from the console.",
  other_user: "This authorization was started by another account. Sign in as that account, or start again.",
};

/**
 * The browser came back from the authorization server. The state is used once (replays and expired states are
 * refused), must belong to the signed-in member, and the code is exchanged with the kept verifier. The tokens
 * are stored encrypted and the worker reconnects the instance; the installation is not touched.
 */
export async function completeOAuth(opts: {
  db: Db;
  userId: string;
  state: string | null;
  code: string | null;
  /** The response's issuer (RFC 9207), checked against the authorization server's before the code is used. */
  iss?: string | null;
  error: string | null;
  errorDescription?: string | null;
  now?: Date;
}): Promise<CallbackOutcome> {
  if (!opts.state) return { ok: false, message: REFUSED.unknown };
  const cipher = getCipher();
  const flow = await consumePendingFlow(opts.db, cipher, {
    state: opts.state,
    userId: opts.userId,
    now: opts.now ?? new Date(),
  });
  if (!flow.ok)
    return {
      ok: false,
      message: REFUSED[flow.reason],
      ...(await whereTo(opts.db, flow.reason === "other_user" ? undefined : flow.instanceId)),
    };
  const back = await whereTo(opts.db, flow.instanceId);
  if (opts.error) {
    const why = opts.errorDescription ? `${opts.error}: ${opts.errorDescription}` : opts.error;
    return { ok: false, message: `The authorization was not granted (${why.slice(0, 200)}).`, ...back };
  }
  if (!opts.code) return { ok: false, message: "The authorization server sent no code back. Try again.", ...back };

  try {
    const { serverUrl, headers, ctx } = await upstreamOf(opts.db, flow.instanceId);
    const tokens = await finishAuthorization({
      serverUrl,
      headers,
      redirectUrl: flow.redirectUri,
      code: opts.code,
      codeVerifier: flow.codeVerifier,
      iss: opts.iss ?? null,
      startedIssuer: flow.issuer,
      clientMetadataUrl: clientMetadataUrlFor(env().APP_URL),
      clients: installationOAuthClients(opts.db, cipher, ctx.installation.id),
      fetch: upstreamEgressFetch(),
    });
    await storeOAuthTokens(opts.db, cipher, { instanceId: flow.instanceId, userId: opts.userId, tokens });
  } catch (err) {
    logger.warn(
      { err: err instanceof Error ? err.message : String(err), instanceId: flow.instanceId },
      "OAuth code exchange failed",
    );
    const refused = egressRefusalOf(err);
    if (refused) return { ok: false, message: refused.message, ...back };
    const detail = err instanceof AppError ? err.message : "the authorization server refused the code";
    return { ok: false, message: `Connecting failed: ${detail}. Try again.`, ...back };
  }
  // The gateway caches the member's tokens; it drops its copy on this message.
  await announceOAuthTokensChanged(flow.instanceId);
  await enqueueOAuth({ instanceId: flow.instanceId, event: "authorized" });
  return { ok: true, instanceId: flow.instanceId, teamSlug: back.teamSlug ?? "", serverName: back.serverName ?? "" };
}

async function whereTo(
  db: Db,
  instanceId: string | undefined,
): Promise<{ teamSlug?: string; instanceId?: string; serverName?: string }> {
  if (!instanceId) return {};
  const instance = await findTeamInstanceForOAuth(db, { instanceId });
  return instance
    ? { teamSlug: instance.installation.team.slug, instanceId, serverName: instance.installation.name }
    : {};
}
