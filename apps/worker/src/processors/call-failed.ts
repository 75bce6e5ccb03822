import type { JobPayload } from "@switchboard/core/contracts";
import { holdsConnection, isRetrying } from "@switchboard/core/status";
import { getInstanceState, RECONNECT_RESET } from "@switchboard/db/queries/instance";
import type { JobContext, WorkerDeps } from "../deps";
import { withInstanceLock } from "../instance-lock";
import { startReconnectLoop } from "../reconnect-schedule";

/**
 * The proxy saw calls fail after their retries (or the health checks, or the gateway's sweep of lost workers,
 * found the instance unreachable): the connection is dropped (server_disconnected, not
 * intentional), the classified status written, and offline / error start the reconnect loop. Health stops
 * for the instance: the reconnect loop is its probe now.
 */
export async function processCallFailed(
  payload: JobPayload<"instance.call-failed">,
  ctx: JobContext,
  deps: WorkerDeps,
) {
  const { instanceId } = payload;
  return withInstanceLock(deps, ctx, instanceId, async () => {
    const state = await getInstanceState(deps.db, instanceId);
    if (!state) return { skipped: "instance not found" };
    if (!holdsConnection(state.status)) return { skipped: state.status };
    const wasUp = !isRetrying(state.status);
    await deps.jobs.removeHealth(instanceId);
    await deps.connections.evict(instanceId);
    const moved = await deps.recorder.transition(instanceId, payload.status, {
      message: payload.message,
      data: { lastError: payload.message, ...(payload.status === "requires_reauth" ? RECONNECT_RESET : {}) },
    });
    if (wasUp && moved.outcome === "changed") {
      await deps.recorder.event(state, "server_disconnected", { reason: payload.message, wasIntentional: false });
    }
    if (payload.status !== "requires_reauth") await startReconnectLoop(deps, instanceId, payload.message);
    ctx.logger.info({ from: state.status, to: payload.status }, "call failure applied");
    return { outcome: payload.status };
  });
}
