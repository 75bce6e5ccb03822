import type { JobPayload } from "@switchboard/core/contracts";
import { callFailureApplies } from "@switchboard/core/policies";
import { isRetrying } from "@switchboard/core/status";
import { getInstanceState, RECONNECT_RESET } from "@switchboard/db/queries/instance-lifecycle";
import type { JobContext, WorkerDeps } from "../deps";
import { withInstanceLock, type LockDeps } from "../instance-lock";
import { startReconnectLoop, type ReconnectLoopDeps } from "../reconnect-schedule";

export type CallFailedDeps = LockDeps & ReconnectLoopDeps & Pick<WorkerDeps, "connections">;

/**
 * The proxy saw calls fail after their retries (or the health checks, or the gateway's sweep of lost workers,
 * found the instance unreachable): the connection is dropped (server_disconnected, not
 * intentional), the classified status written, and offline / error start the reconnect loop. Health stops
 * for the instance: the reconnect loop is its probe now. A report about a connection the instance has replaced
 * since, or a call's failure while a worker is already (re)connecting, changes nothing (core callFailureApplies).
 */
export async function processCallFailed(
  payload: JobPayload<"instance.call-failed">,
  ctx: JobContext,
  deps: CallFailedDeps,
) {
  const { instanceId } = payload;
  return withInstanceLock(deps, ctx, instanceId, async () => {
    const state = await getInstanceState(deps.db, instanceId);
    if (!state) return { skipped: "instance not found" };
    const decision = callFailureApplies({
      status: state.status,
      statusChangedAt: state.statusChangedAt,
      startedAt: payload.startedAt === undefined ? undefined : new Date(payload.startedAt),
    });
    if (!decision.apply) {
      ctx.logger.debug({ status: state.status, why: decision.why }, "call failure ignored");
      return { skipped: state.status, why: decision.why };
    }
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
