import type { JobPayload } from "@switchboard/core/jobs";
import { getInstanceState, RECONNECT_RESET, updateInstance } from "@switchboard/db/queries/instances";
import type { JobContext, WorkerDeps } from "../deps";
import { connectAndDiscover } from "../discovery-run";
import { withInstanceLock } from "../instance-lock";
import { startReconnectLoop } from "../reconnect-schedule";

/**
 * Ops "reconnect now":
 * - offline / error: cancel the scheduled retry, reset the backoff and try now (a failure starts the loop
 *   again from attempt 1);
 * - online: close and reopen the connection (server_disconnected wasIntentional, then server_reconnected);
 * - permanently_failed: clear the crash history and start again;
 * - anything else is in progress or waits for the member: nothing to force.
 */
export async function processForceReconnect(payload: JobPayload<"instance.force-reconnect">, ctx: JobContext, deps: WorkerDeps) {
  const { instanceId } = payload;
  return withInstanceLock(deps, ctx, instanceId, async () => {
    const state = await getInstanceState(deps.db, instanceId);
    if (!state) return { skipped: "instance not found" };
    const { status } = state;
    if (status !== "online" && status !== "offline" && status !== "error" && status !== "permanently_failed") {
      return { skipped: status };
    }
    // The timeline says who asked (a restart of a stopped server says so in its server_restarted event).
    if (status !== "permanently_failed") await deps.recorder.event(state, "reconnect_requested", { requestedBy: payload.requestedBy ?? null, from: status });

    let attemptsTaken = 0;
    if (status === "offline" || status === "error") {
      const cancelled = await deps.jobs.cancelReconnect(instanceId);
      // "active" cannot happen while we hold the lock, except for a job that lost it on a crash: it will
      // find the instance online (or fail and reschedule) and end by itself.
      ctx.logger.info({ cancelled, attempt: state.reconnectAttempt }, "forced reconnect of a waiting instance");
      attemptsTaken = Math.max(1, state.reconnectAttempt);
      await updateInstance(deps.db, instanceId, { ...RECONNECT_RESET });
    } else if (status === "online") {
      await deps.recorder.event(state, "server_disconnected", { reason: "Forced reconnect", wasIntentional: true });
    } else {
      await updateInstance(deps.db, instanceId, { crashHistory: [], ...RECONNECT_RESET });
      // supervisor.restart: crash history cleared, a fresh process started (where this worker runs it).
      if (state.transport === "stdio") await deps.connections.restart(instanceId);
      await deps.recorder.event(state, "server_restarted", { reason: "manual", requestedBy: payload.requestedBy ?? null });
    }

    const outcome = await connectAndDiscover(deps, ctx, instanceId, { freshConnection: status !== "permanently_failed" });
    if (outcome.kind === "online" && status !== "permanently_failed") {
      await deps.recorder.event(state, "server_reconnected", {
        attemptsTaken,
        capabilities: outcome.result.capabilities as Record<string, unknown>,
      });
    }
    if (outcome.kind === "failed" && outcome.retry) await startReconnectLoop(deps, instanceId, outcome.classification.message);
    return { outcome: outcome.kind };
  });
}
