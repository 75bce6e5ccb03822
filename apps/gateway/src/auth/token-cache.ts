import { onAuthInvalidation, type AuthInvalidation } from "@switchboard/runtime/live-events";

/**
 * Per-process cache of authenticated access tokens, so an MCP request costs no database round trip for auth.
 * The cache lives only in the gateway process. Revocation and member removal end access at once anyway: the
 * console, which makes those changes, publishes them (`@switchboard/runtime/invalidations`) and every gateway
 * process drops its entries on receipt. Entries also expire after a minute, and never outlive the token's own
 * expiry.
 */
export interface Principal {
  tokenId: string;
  userId: string;
  teamId: string;
  mode: "all" | "router";
  /** The toolset the token is limited to (null: the member's whole catalogue). OAuth grants carry the same. */
  toolsetId: string | null;
}

const TTL_MS = 60_000;

interface Entry {
  principal: Principal;
  until: number;
}

// Module state: the gateway is a plain Node process (no hot reload re-evaluating modules), so no globalThis.
const state: { entries: Map<string, Entry>; touched: Map<string, number>; listening: boolean } = {
  entries: new Map(),
  touched: new Map(),
  listening: false,
};

function drop(match: AuthInvalidation) {
  for (const [hash, { principal }] of state.entries) {
    const hit =
      (match.tokenId !== undefined && principal.tokenId === match.tokenId) ||
      (match.userId !== undefined &&
        principal.userId === match.userId &&
        (match.teamId === undefined || principal.teamId === match.teamId)) ||
      // A deleted team: every member's tokens.
      (match.tokenId === undefined &&
        match.userId === undefined &&
        match.teamId !== undefined &&
        principal.teamId === match.teamId);
    if (hit) state.entries.delete(hash);
  }
}

export function cachedPrincipal(tokenHash: string): Principal | null {
  if (!state.listening) {
    state.listening = true;
    onAuthInvalidation(drop);
  }
  const entry = state.entries.get(tokenHash);
  if (!entry) return null;
  if (entry.until <= Date.now()) {
    state.entries.delete(tokenHash);
    return null;
  }
  return entry.principal;
}

export function rememberPrincipal(tokenHash: string, principal: Principal, expiresAt: Date | null) {
  const until = Math.min(Date.now() + TTL_MS, expiresAt?.getTime() ?? Number.POSITIVE_INFINITY);
  state.entries.set(tokenHash, { principal, until });
}

/** True at most once a minute per token: last-used times are minute-accurate, not a write per request. */
export function shouldTouch(tokenId: string, now = Date.now()): boolean {
  const last = state.touched.get(tokenId) ?? 0;
  if (now - last < 60_000) return false;
  state.touched.set(tokenId, now);
  return true;
}
