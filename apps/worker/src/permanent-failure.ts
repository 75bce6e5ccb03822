import type { InstanceRef } from "@switchboard/db/queries/instance";
import type { WorkerDeps } from "./deps";
import { stopInstanceRuntime, type StopDeps } from "./instance-lock";

export type PermanentFailureDeps = StopDeps & Pick<WorkerDeps, "recorder">;

/**
 * A stdio server that crashed too often: nothing of it runs or is scheduled any more, the status says
 * permanently_failed with a message for the console, and the cached tools stay. Only an explicit restart
 * (or forced reconnect) leaves it. Callers hold the instance's lock.
 */
export async function markPermanentlyFailed(
  deps: PermanentFailureDeps,
  ref: Pick<InstanceRef, "id" | "teamId" | "installationId" | "userId">,
  crashesInWindow: number,
): Promise<void> {
  await stopInstanceRuntime(deps, ref.id);
  const message = `Process crashed ${crashesInWindow} times in 5 minutes. Manual restart required.`;
  const moved = await deps.recorder.transition(ref.id, "permanently_failed", { message, data: { lastError: message } });
  if (moved.outcome === "changed")
    await deps.recorder.event(ref, "server_permanently_failed", { crashesInWindow, message });
}
