import type { JobPayload } from "@switchboard/core/contracts";
import { OAUTH_POLICY, refreshAt } from "@switchboard/core/oauth";
import { holdsConnection, isDiscoveryStep, isRetrying, reconnectsOnAuthorization } from "@switchboard/core/status";
import { getCipher } from "@switchboard/db/crypto";
import { getInstanceState, type InstanceState, RECONNECT_RESET } from "@switchboard/db/queries/instance-lifecycle";
import { loadOAuthTokens } from "@switchboard/db/queries/upstream-oauth";
import type { JobContext, WorkerDeps } from "../deps";
import { connectAndDiscover, type DiscoveryDeps } from "../discovery-run";
import { withInstanceLock, type LockDeps } from "../instance-lock";
import { refreshInstanceTokens, type OAuthDeps } from "../oauth/refresh";
import { startReconnectLoop, type ReconnectLoopDeps } from "../reconnect-schedule";

export type OAuthAuthorizedDeps = LockDeps & DiscoveryDeps & ReconnectLoopDeps;
type ReauthDeps = Pick<WorkerDeps, "jobs" | "connections" | "recorder">;
type TokenDeps = Pick<WorkerDeps, "db" | "clock" | "upstreamFetch" | "secrets" | "metrics">;
export type OAuthRefreshDeps = LockDeps & ReauthDeps & TokenDeps;

const oauthDeps = (deps: TokenDeps): OAuthDeps => ({
  db: deps.db,
  cipher: getCipher(),
  clock: deps.clock,
  fetch: deps.upstreamFetch,
  onTokensChanged: (instanceId) => deps.secrets.forget(instanceId),
  metrics: deps.metrics,
});

/**
 * The member stored fresh tokens in the console: drop the connection that used the old ones, move the instance
 * to connecting (out of requires_reauth, offline or error; online reconnects too) and discover, live.
 */
export async function processOAuthAuthorized(
  payload: JobPayload<"instance.oauth-authorized">,
  ctx: JobContext,
  deps: OAuthAuthorizedDeps,
) {
  const { instanceId } = payload;
  return withInstanceLock(deps, ctx, instanceId, async () => {
    const state = await getInstanceState(deps.db, instanceId);
    if (!state) return { skipped: "instance not found" };
    if (!(await loadOAuthTokens(deps.db, getCipher(), instanceId))) return { skipped: "no tokens" };
    if (!reconnectsOnAuthorization(state.status)) return { skipped: state.status };
    await deps.jobs.cancelReconnect(instanceId);
    await deps.connections.evict(instanceId);
    // Already on its way to online: the authorization does not need to restart the walk.
    if (!isDiscoveryStep(state.status)) {
      const moved = await deps.recorder.transition(instanceId, "connecting", {
        data: { ...RECONNECT_RESET, lastError: null },
      });
      if (moved.outcome !== "changed" && moved.outcome !== "unchanged")
        return { skipped: `cannot connect from ${state.status}` };
    }
    const outcome = await connectAndDiscover(deps, ctx, instanceId, { freshConnection: true });
    if (outcome.kind === "failed" && outcome.retry)
      await startReconnectLoop(deps, instanceId, outcome.classification.message);
    ctx.logger.info({ outcome: outcome.kind }, "instance reconnected after OAuth authorization");
    return { outcome: outcome.kind };
  });
}

/** Only this member's instance: stop using it and tell them to re-authenticate (the console shows the button). */
async function requireReauth(deps: ReauthDeps, ctx: JobContext, state: InstanceState, message: string) {
  // A lost grant moves a held connection to requires_reauth; the others are already stopped or waiting.
  if (!holdsConnection(state.status)) return;
  await deps.jobs.removeHealth(state.id);
  await deps.jobs.cancelReconnect(state.id);
  await deps.connections.evict(state.id);
  const moved = await deps.recorder.transition(state.id, "requires_reauth", {
    message,
    data: { ...RECONNECT_RESET, lastError: message },
  });
  if (moved.outcome === "changed" && !isRetrying(state.status)) {
    await deps.recorder.event(state, "server_disconnected", { reason: message, wasIntentional: false });
  }
  ctx.logger.info({ from: state.status }, "OAuth grant lost; instance requires re-authentication");
}

/**
 * `scheduled`: the per-instance refresh loop. It sleeps (the same job, delayed) until the refresh time of the
 * stored tokens, refreshes, and sleeps again; it ends when there is nothing to refresh or the grant is gone.
 * An authorization server outage is retried later without touching the status.
 * `unauthorized`: the proxy saw a 401; refresh now unless the tokens were just renewed (the proxy re-reads them).
 */
export async function processOAuthRefresh(
  payload: JobPayload<"instance.oauth-refresh">,
  ctx: JobContext,
  deps: OAuthRefreshDeps,
) {
  const { instanceId, reason } = payload;
  return withInstanceLock(deps, ctx, instanceId, async () => {
    const state = await getInstanceState(deps.db, instanceId);
    if (!state) return { skipped: "instance not found" };
    const tokens = await loadOAuthTokens(deps.db, getCipher(), instanceId);
    if (!tokens) return { skipped: "no tokens" };
    const now = deps.clock().getTime();

    if (reason === "scheduled") {
      const at = refreshAt(tokens);
      if (!at) return { skipped: "nothing to refresh" };
      if (at.getTime() > now) return ctx.rescheduleSelf(at.getTime() - now);
    } else if (tokens.obtainedAt && now - tokens.obtainedAt.getTime() < 5_000) {
      return { skipped: "just refreshed" };
    }

    const result = await refreshInstanceTokens(oauthDeps(deps), instanceId, tokens);
    switch (result.kind) {
      case "refreshed":
      case "superseded": {
        ctx.logger.info({ reason, outcome: result.kind }, "OAuth access token refreshed");
        const next = reason === "scheduled" ? refreshAt(result.tokens) : undefined;
        if (next) return ctx.rescheduleSelf(Math.max(0, next.getTime() - deps.clock().getTime()));
        return { outcome: result.kind };
      }
      case "reauth":
        await requireReauth(deps, ctx, state, result.message);
        return { outcome: "requires_reauth" };
      case "retry":
        ctx.logger.warn({ reason, err: result.message }, "OAuth refresh failed for now; retrying later");
        if (reason === "scheduled") return ctx.rescheduleSelf(OAUTH_POLICY.retryAfterMs);
        return { outcome: "retry" };
      case "none":
        return { skipped: "nothing to refresh" };
    }
  });
}
