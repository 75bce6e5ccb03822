import type { JobPayload } from "@switchboard/core/contracts";
import { recordCrash } from "@switchboard/core/policies";
import { getInstanceState, updateInstance } from "@switchboard/db/queries/instance-lifecycle";
import type { JobContext, WorkerDeps } from "../deps";
import { withInstanceLock, type LockDeps } from "../instance-lock";
import { markPermanentlyFailed, type PermanentFailureDeps } from "../permanent-failure";

export type CrashedDeps = LockDeps & PermanentFailureDeps & Pick<WorkerDeps, "db" | "secrets">;

/**
 * A hosted stdio process exited on its own (reported by the core StdioSupervisor with its exit code, signal
 * and stderr tail). Core crash policy: the crash joins a sliding 5-minute window; the 3rd one in the window is
 * permanently_failed (no restart until someone restarts it), earlier ones restart the server (the supervisor
 * has started the new process already; discovery reconnects to it). The discovered tools are kept either way.
 *
 * The window is the instance's persisted crashHistory, so it survives a worker restart and any worker can run
 * this job; it mirrors the supervisor's own count, and the stricter of the two wins (a supervisor that gave up
 * refuses to connect, which discovery turns into permanently_failed too).
 */
export async function processCrashed(payload: JobPayload<"instance.crashed">, ctx: JobContext, deps: CrashedDeps) {
  const { instanceId } = payload;
  return withInstanceLock(deps, ctx, instanceId, async () => {
    const state = await getInstanceState(deps.db, instanceId);
    if (!state) return { skipped: "instance not found" };
    if (state.status === "awaiting_user_config") return { skipped: state.status };

    // Queued redacted already; again here, with the secrets as they are now, before it is stored and shown.
    const stderrTail = payload.stderrTail
      ? await deps.secrets.text(instanceId, payload.stderrTail, { bounded: true })
      : undefined;
    const at = new Date(payload.at).getTime();
    const crash = recordCrash(
      state.crashHistory.map((d) => d.getTime()),
      at,
    );
    await updateInstance(deps.db, instanceId, {
      crashHistory: crash.history.map((t) => new Date(t)),
      ...(stderrTail ? { stderrTail } : {}),
    });
    await deps.recorder.event(state, "server_crashed", {
      exitCode: payload.exitCode,
      signal: payload.signal,
      crashesInWindow: crash.crashesInWindow,
      ...(stderrTail ? { stderrTail } : {}),
    });
    ctx.logger.warn({ crashesInWindow: crash.crashesInWindow }, "stdio server crashed");

    // Discovery may have seen the supervisor refuse first: the crash is still recorded, the rest is done.
    if (state.status === "permanently_failed") return { outcome: "permanently_failed" };
    if (crash.permanentlyFailed) {
      await markPermanentlyFailed(deps, state, crash.crashesInWindow);
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
