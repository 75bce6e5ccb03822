import type { JobPayload } from "@switchboard/core/contracts";
import { getInstanceState, RECONNECT_RESET } from "@switchboard/db/queries/instance-lifecycle";
import type { JobContext, WorkerDeps } from "../deps";
import { stopInstanceRuntime, withInstanceLock, type LockDeps, type StopDeps } from "../instance-lock";

export type RestartDeps = LockDeps & StopDeps & Pick<WorkerDeps, "db" | "recorder">;

/**
 * Ops "restart": stop whatever runs and start from scratch. Out of permanently_failed this is the only way
 * (crash history cleared in the database and in the stdio supervisor, back to provisioning); elsewhere it goes
 * through restarting.
 */
export async function processRestart(payload: JobPayload<"instance.restart">, ctx: JobContext, deps: RestartDeps) {
  const { instanceId } = payload;
  return withInstanceLock(deps, ctx, instanceId, async () => {
    const state = await getInstanceState(deps.db, instanceId);
    if (!state) return { skipped: "instance not found" };
    if (state.status === "awaiting_user_config") return { skipped: state.status };

    await stopInstanceRuntime(deps, instanceId);
    // The supervisor forgets the crash history too (lifting its refusal); discovery starts a fresh process.
    await deps.connections.remove(instanceId);
    const target = state.status === "permanently_failed" ? "provisioning" : "restarting";
    const moved = await deps.recorder.transition(instanceId, target, {
      message: "Restart requested",
      data: { ...RECONNECT_RESET, crashHistory: [] },
    });
    if (moved.outcome !== "changed" && moved.outcome !== "unchanged")
      return { skipped: `cannot restart from ${state.status}` };
    await deps.recorder.event(state, "server_restarted", {
      reason: "manual",
      requestedBy: payload.requestedBy ?? null,
    });
    await deps.jobs.enqueueDiscover(instanceId, "restart");
    ctx.logger.info({ from: state.status }, "instance restarted");
    return { outcome: target };
  });
}
