import { getDb } from "@switchboard/db/client";
import { sha256 } from "@switchboard/db/crypto";
import { findActiveAccessToken } from "@switchboard/db/queries/token";

/**
 * What the gateway would find behind a bearer token when its cache has nothing: the active token row (its
 * user, team and mode), or null (unknown, revoked, expired, member gone). The console holds no token cache; the
 * gateway's, and how the console's changes reach it, are tested in apps/gateway.
 */
export function activeToken(bearer: string) {
  return findActiveAccessToken(getDb(), { tokenHash: sha256(bearer) });
}
