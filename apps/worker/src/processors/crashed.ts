import type { JobPayload } from "@switchboard/core/jobs";
import { recordCrash } from "@switchboard/core/policies";
import { getInstanceState, updateInstance } from "@switchboard/db/queries/instances";
import type { JobContext, WorkerDeps } from "../deps";
import { stopInstanceRuntime, withInstanceLock } from "../instance-lock";

/**
 * A hosted stdio process exited on its own. Core crash policy: the crash joins a sliding 5-minute window;
 * the 3rd one in the window is permanently_failed (no restart until someone restarts it), earlier ones
 * restart the server. The discovered tools are kept either way.
 */
export async function processCrashed(payload: JobPayload<"instance.crashed">, ctx: JobContext, deps: WorkerDeps) {
  const { instanceId } = payload;
  return withInstanceLock(deps, ctx, instanceId, async () => {
    const state = await getInstanceState(deps.db, instanceId);
    if (!state) return { skipped: "instance not found" };
    if (state.status === "permanently_failed" || state.status === "awaiting_user_config") return { skipped: state.status };

    const at = new Date(payload.at).getTime();
    const crash = recordCrash(state.crashHistory.map((d) => d.getTime()), at);
    await updateInstance(deps.db, instanceId, {
      crashHistory: crash.history.map((t) => new Date(t)),
      ...(payload.stderrTail ? { stderrTail: payload.stderrTail } : {}),
    });
    await deps.recorder.event(state, "server_crashed", {
      exitCode: payload.exitCode,
      signal: payload.signal,
      crashesInWindow: crash.crashesInWindow,
      ...(payload.stderrTail ? { stderrTail: payload.stderrTail } : {}),
    });
    ctx.logger.warn({ crashesInWindow: crash.crashesInWindow }, "stdio server crashed");

    if (crash.permanentlyFailed) {
      await stopInstanceRuntime(deps, instanceId);
      const message = `Process crashed ${crash.crashesInWindow} times in 5 minutes. Manual restart required.`;
      await deps.recorder.transition(instanceId, "permanently_failed", { message, data: { lastError: message } });
      await deps.recorder.event(state, "server_permanently_failed", { crashesInWindow: crash.crashesInWindow, message });
      return { outcome: "permanently_failed" };
    }
    // Restart on crash. Mid-discovery or while reconnecting, the running job already deals with the failure.
    if (state.status === "online") {
      await deps.recorder.transition(instanceId, "connecting", { message: "Restarting after a crash" });
      await deps.jobs.enqueueDiscover(instanceId, "crash_restart");
    }
    return { outcome: "restarting" };
  });
}
