import {
  InvalidClientError,
  InvalidGrantError,
  OAuthError,
  UnauthorizedClientError,
} from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { OAuthTokenSet } from "./store";
import { egressRefusalOf } from "../egress/errors";

export const OAUTH_POLICY = Object.freeze({
  /** Refresh this long before expiry at most ... */
  maxLeadMs: 5 * 60_000,
  /** ... and at most this share of the token's lifetime (short-lived tokens are refreshed at 75 % of their life). */
  leadShare: 0.25,
  /** A transient refresh failure (authorization server down) is retried after this long. */
  retryAfterMs: 30_000,
  /** A pending console authorization (state + PKCE verifier) is valid this long. */
  pendingFlowTtlMs: 10 * 60_000,
  /** Starting an authorization (discovery, registration) gives up after this long: the console never hangs. */
  startTimeoutMs: 20_000,
  /** ... and each request of it after this long. */
  requestTimeoutMs: 10_000,
});

/**
 * When the access token should be refreshed: `undefined` when it cannot be (no refresh token) or need not be
 * (no expiry known). Pure; the worker schedules its refresh job at this time.
 */
export function refreshAt(
  tokens: Pick<OAuthTokenSet, "expiresAt" | "obtainedAt" | "refreshToken">,
  policy = OAUTH_POLICY,
): Date | undefined {
  if (!tokens.refreshToken || !tokens.expiresAt) return undefined;
  const expires = tokens.expiresAt.getTime();
  const lifetime = tokens.obtainedAt ? expires - tokens.obtainedAt.getTime() : Number.POSITIVE_INFINITY;
  const lead = Math.min(policy.maxLeadMs, Math.max(0, lifetime) * policy.leadShare);
  return new Date(expires - lead);
}

/** True when the token is due for a refresh at `now` (see refreshAt). */
export function needsRefresh(
  tokens: Pick<OAuthTokenSet, "expiresAt" | "obtainedAt" | "refreshToken">,
  now: Date,
  policy = OAUTH_POLICY,
): boolean {
  const at = refreshAt(tokens, policy);
  return at !== undefined && at.getTime() <= now.getTime();
}

export type RefreshFailure =
  /** The grant is gone: the member must authorize again. */
  | { kind: "reauth"; message: string }
  /** The authorization server could not answer now: try again later, nothing changes for the member yet. */
  | { kind: "retry"; message: string; cause?: unknown };

/**
 * Whether a failed refresh needs the member (invalid_grant, invalid_client, unauthorized_client, any other
 * OAuth error answer) or only time (network failure, 5xx server_error, temporarily_unavailable, rate limit).
 */
export function classifyRefreshFailure(error: unknown): RefreshFailure {
  const detail = error instanceof Error ? error.message : String(error);
  // An authorization server the egress rules refuse will not become reachable by waiting: stop and say why.
  const refused = egressRefusalOf(error);
  if (refused) return { kind: "reauth", message: refused.message };
  if (error instanceof InvalidGrantError) {
    return {
      kind: "reauth",
      message: `The authorization expired or was revoked; re-authenticate to reconnect (${detail || "invalid_grant"}).`,
    };
  }
  if (error instanceof InvalidClientError || error instanceof UnauthorizedClientError) {
    return {
      kind: "reauth",
      message: `The authorization server no longer accepts Switchboard's client; re-authenticate (${error.errorCode}).`,
    };
  }
  if (error instanceof OAuthError) {
    if (["server_error", "temporarily_unavailable", "too_many_requests"].includes(error.errorCode)) {
      return { kind: "retry", message: `The authorization server is unavailable (${error.errorCode}).`, cause: error };
    }
    return {
      kind: "reauth",
      message: `Refreshing the authorization failed (${error.errorCode}); re-authenticate to reconnect.`,
    };
  }
  return { kind: "retry", message: `Could not reach the authorization server: ${detail}`, cause: error };
}
