import { oauthFetch, type OAuthTokenSet } from "@switchboard/core/oauth";
import { getDb } from "@switchboard/db/client";
import { getCipher } from "@switchboard/db/crypto";
import { loadOAuthTokens, recordNeededScope } from "@switchboard/db/queries/upstream-oauth";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { onOAuthTokensChanged } from "@switchboard/runtime/live-events";

/**
 * The MCP route's side of upstream OAuth. The route never refreshes (the worker owns refreshing, so two
 * processes never race a rotating refresh token): it sends the member's current access token, read from the
 * database and cached briefly, and on a 401 re-reads once in case the worker refreshed meanwhile. When the
 * console stores new tokens (the member authorized again) it publishes the change and the cached copy goes.
 */
const CACHE_MS = 30_000;
const cache = new Map<string, { tokens: Promise<OAuthTokenSet | undefined>; until: number }>();
let listening = false;

function untilFor(tokens: OAuthTokenSet | undefined, now: number): number {
  // Never past the token's own expiry: a refresh written by the worker is picked up by then at the latest.
  const expires = tokens?.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
  return Math.min(now + CACHE_MS, Math.max(now + 1_000, expires - 1_000));
}

export function currentOAuthTokens(instanceId: string): Promise<OAuthTokenSet | undefined> {
  if (!listening) {
    listening = true;
    onOAuthTokensChanged(forgetOAuthTokens);
  }
  const now = Date.now();
  const hit = cache.get(instanceId);
  if (hit && now < hit.until) return hit.tokens;
  const tokens = loadOAuthTokens(getDb(), getCipher(), instanceId);
  const entry = { tokens, until: now + 1_000 };
  cache.set(instanceId, entry);
  tokens.then(
    (t) => void (entry.until = untilFor(t, now)),
    () => cache.delete(instanceId),
  );
  return tokens;
}

export function forgetOAuthTokens(instanceId: string): void {
  cache.delete(instanceId);
}

/** True when the member authorized this instance with OAuth (a 401 then means "refresh", not "misconfigured"). */
export async function usesOAuth(instanceId: string): Promise<boolean> {
  return (await currentOAuthTokens(instanceId)) !== undefined;
}

/** The fetch the route's connection to an OAuth instance uses: Authorization from the stored tokens. */
export async function oauthUpstreamFetch(instanceId: string, base: FetchLike): Promise<FetchLike | undefined> {
  if (!(await currentOAuthTokens(instanceId))) return undefined;
  return oauthFetch(base, {
    tokens: () => currentOAuthTokens(instanceId),
    onUnauthorized: async (used) => {
      forgetOAuthTokens(instanceId);
      const latest = await currentOAuthTokens(instanceId);
      return latest && latest.accessToken !== used.accessToken ? latest : undefined;
    },
    // A step-up: the member's Re-authenticate asks for this scope besides the granted one.
    onInsufficientScope: async (_used, scope) => {
      if (scope) await recordNeededScope(getDb(), { instanceId, scope });
    },
  });
}
