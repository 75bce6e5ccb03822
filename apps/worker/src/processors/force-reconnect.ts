import type { JobPayload } from "@switchboard/core/contracts";
import { isReconnectable, isRetrying } from "@switchboard/core/status";
import { getInstanceState, RECONNECT_RESET, updateInstance } from "@switchboard/db/queries/instance-lifecycle";
import type { JobContext } from "../deps";
import { connectAndDiscover, type DiscoveryDeps } from "../discovery-run";
import { withInstanceLock, type LockDeps } from "../instance-lock";
import { startReconnectLoop, type ReconnectLoopDeps } from "../reconnect-schedule";

export type ForceReconnectDeps = LockDeps & DiscoveryDeps & ReconnectLoopDeps;

/**
 * Ops "reconnect now":
 * - offline / error: cancel the scheduled retry, reset the backoff and try now (a failure starts the loop
 *   again from attempt 1);
 * - online: close and reopen the connection (server_disconnected wasIntentional, then server_reconnected);
 * - anything else is in progress, waits for the member, or (permanently_failed) for an admin's restart: nothing
 *   to force.
 */
export async function processForceReconnect(
  payload: JobPayload<"instance.force-reconnect">,
  ctx: JobContext,
  deps: ForceReconnectDeps,
) {
  const { instanceId } = payload;
  return withInstanceLock(deps, ctx, instanceId, async () => {
    const state = await getInstanceState(deps.db, instanceId);
    if (!state) return { skipped: "instance not found" };
    const { status } = state;
    // The console's rule: permanently_failed leaves only through an admin's restart (its own job), never here.
    if (!isReconnectable(status)) return { skipped: status };
    // The timeline says who asked.
    await deps.recorder.event(state, "reconnect_requested", { requestedBy: payload.requestedBy ?? null, from: status });

    let attemptsTaken = 0;
    if (isRetrying(status)) {
      const cancelled = await deps.jobs.cancelReconnect(instanceId);
      // "active" cannot happen while we hold the lock, except for a job that lost it on a crash: it will
      // find the instance online (or fail and reschedule) and end by itself.
      ctx.logger.info({ cancelled, attempt: state.reconnectAttempt }, "forced reconnect of a waiting instance");
      attemptsTaken = Math.max(1, state.reconnectAttempt);
      await updateInstance(deps.db, instanceId, { ...RECONNECT_RESET });
    } else {
      await deps.recorder.event(state, "server_disconnected", { reason: "Forced reconnect", wasIntentional: true });
    }

    const outcome = await connectAndDiscover(deps, ctx, instanceId, { freshConnection: true });
    if (outcome.kind === "online") {
      await deps.recorder.event(state, "server_reconnected", {
        attemptsTaken,
        capabilities: outcome.result.capabilities as Record<string, unknown>,
      });
    }
    if (outcome.kind === "failed" && outcome.retry)
      await startReconnectLoop(deps, instanceId, outcome.classification.message);
    return { outcome: outcome.kind };
  });
}
