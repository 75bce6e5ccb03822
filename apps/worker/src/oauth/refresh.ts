import type { WorkerMetrics } from "@switchboard/runtime/metrics";
import {
  oauthFetch,
  ReauthorizationRequiredError,
  refreshAccessToken,
  type OAuthTokenSet,
} from "@switchboard/core/oauth";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { UpstreamTransportOptions } from "@switchboard/core/upstream";
import type { Db } from "@switchboard/db/client";
import type { Cipher } from "@switchboard/db/crypto";
import { loadInstanceLaunch } from "@switchboard/db/launch";
import {
  installationOAuthClients,
  loadOAuthTokens,
  recordNeededScope,
  replaceRefreshedTokens,
  type StoredOAuthTokens,
} from "@switchboard/db/queries/upstream-oauth";

export interface OAuthDeps {
  db: Db;
  cipher: Cipher;
  clock: () => Date;
  /** New tokens were stored: what redacts this instance's secrets must learn them. */
  onTokensChanged?: (instanceId: string) => void;
  /** The egress-checked fetch: token endpoints are named by the upstream and are as untrusted as its URL. */
  fetch: FetchLike;
  /** Counts refresh outcomes (WORKER_METRICS_PORT). */
  metrics?: WorkerMetrics;
}

export type WorkerRefreshResult =
  | { kind: "refreshed"; tokens: OAuthTokenSet }
  /** Someone else stored newer tokens while we refreshed (a re-authorization, another worker): theirs stand. */
  | { kind: "superseded"; tokens: OAuthTokenSet }
  | { kind: "reauth"; message: string }
  | { kind: "retry"; message: string; cause?: unknown }
  | { kind: "none" };

/** One refresh per instance at a time in this process: a 401 and the scheduled loop must not both spend it. */
const inflight = new Map<string, Promise<WorkerRefreshResult>>();

/**
 * Refreshes the instance's tokens from the stored refresh token and writes the result if the row is still the
 * one it started from (compare-and-set on its version). Rotated refresh tokens make a lost race cost a grant,
 * so the single-flight map and the instance lock keep it to one at a time.
 */
export function refreshInstanceTokens(
  deps: OAuthDeps,
  instanceId: string,
  from?: StoredOAuthTokens,
): Promise<WorkerRefreshResult> {
  const running = inflight.get(instanceId);
  if (running) return running;
  const run = (async (): Promise<WorkerRefreshResult> => {
    const tokens = from ?? (await loadOAuthTokens(deps.db, deps.cipher, instanceId));
    if (!tokens) return { kind: "none" };
    const loaded = await loadInstanceLaunch(deps.db, deps.cipher, instanceId);
    if (!loaded || loaded.launch.transport === "stdio") return { kind: "none" };
    const { ctx, launch } = loaded;
    const result = await refreshAccessToken({
      serverUrl: launch.url,
      clients: installationOAuthClients(deps.db, deps.cipher, ctx.installation.id),
      tokens,
      now: deps.clock,
      fetch: deps.fetch,
    });
    if (!result.ok)
      return result.kind === "reauth"
        ? { kind: "reauth", message: result.message }
        : { kind: "retry", message: result.message, cause: result.cause };
    if (
      await replaceRefreshedTokens(deps.db, deps.cipher, { instanceId, version: tokens.version, tokens: result.tokens })
    ) {
      deps.onTokensChanged?.(instanceId);
      return { kind: "refreshed", tokens: result.tokens };
    }
    const latest = await loadOAuthTokens(deps.db, deps.cipher, instanceId);
    return latest ? { kind: "superseded", tokens: latest } : { kind: "none" };
  })()
    .then(
      (result) => (deps.metrics?.oauthRefresh(result.kind), result),
      (err: unknown) => {
        deps.metrics?.oauthRefresh("error");
        throw err;
      },
    )
    .finally(() => inflight.delete(instanceId));
  inflight.set(instanceId, run);
  return run;
}

/**
 * The worker's connection hook for OAuth instances: the stored access token on every request, and on a 401 a
 * refresh and one retry. A grant that is gone surfaces as ReauthorizationRequiredError (requires_reauth with the
 * member-facing message); an unreachable authorization server as a transient failure (offline, retried).
 */
export async function oauthTransportOptions(
  deps: OAuthDeps,
  instanceId: string,
): Promise<Pick<UpstreamTransportOptions, "fetch"> | undefined> {
  if (!(await loadOAuthTokens(deps.db, deps.cipher, instanceId))) return undefined;
  return {
    fetch: oauthFetch(deps.fetch, {
      tokens: () => loadOAuthTokens(deps.db, deps.cipher, instanceId),
      onUnauthorized: async (used) => {
        const stored = await loadOAuthTokens(deps.db, deps.cipher, instanceId);
        if (stored && stored.accessToken !== used.accessToken) return stored;
        const result = await refreshInstanceTokens(deps, instanceId, stored);
        switch (result.kind) {
          case "refreshed":
          case "superseded":
            return result.tokens;
          case "reauth":
            throw new ReauthorizationRequiredError(result.message);
          case "retry":
            throw new Error(result.message, { cause: result.cause });
          case "none":
            return undefined;
        }
      },
      onInsufficientScope: async (_used, scope) => {
        if (scope) await recordNeededScope(deps.db, { instanceId, scope });
      },
    }),
  };
}
