import { logger } from "./logger";
import { authChannel, oauthTokensChannel, type AuthInvalidation } from "./live-events";
import { redis } from "./redis";

/**
 * What the console tells the gateway when a cache there must go at once. The caches live only in the gateway
 * process (`apps/gateway/src/auth/token-cache.ts`, `apps/gateway/src/oauth/upstream-auth.ts`); the console,
 * which makes the change, publishes it here and every gateway process drops its entries on receipt.
 */

/** Ends cached access in every gateway process: a token, a member of a team, or a whole team. */
export async function invalidateAccess(match: AuthInvalidation): Promise<void> {
  try {
    await redis().publish(authChannel(), JSON.stringify(match));
  } catch (err) {
    // The gateways still drop the entry within their cache's TTL; say so loudly.
    logger.error({ err, match }, "could not publish an access invalidation; gateway processes keep it up to 60 s");
  }
}

/** A member's stored OAuth tokens for an instance changed: every gateway process re-reads them. */
export async function announceOAuthTokensChanged(instanceId: string): Promise<void> {
  try {
    await redis().publish(oauthTokensChannel(), JSON.stringify({ instanceId }));
  } catch (err) {
    logger.error(
      { err, instanceId },
      "could not publish an OAuth token change; gateway processes keep the old token up to 30 s",
    );
  }
}
