import { boundDetail } from "@switchboard/core/errors";
import { shouldEmitReconnecting } from "@switchboard/core/policies";
import { isRetrying } from "@switchboard/core/status";
import {
  getInstanceState,
  type InstanceState,
  recordReconnectScheduled,
} from "@switchboard/db/queries/instance-lifecycle";
import type { WorkerDeps } from "./deps";

export type NextAttemptDeps = Pick<WorkerDeps, "db" | "clock" | "recorder" | "secrets" | "tunables">;
export type ReconnectLoopDeps = NextAttemptDeps & Pick<WorkerDeps, "jobs">;

/**
 * Records that attempt `attempt` (1-based) will run after the backoff delay, and says so with a
 * server_reconnecting event unless the throttle holds it back (at the 180 s cap: one per 10 minutes; the
 * attempt is still recorded on the instance). Returns the delay.
 */
export async function recordNextAttempt(
  deps: NextAttemptDeps,
  state: Pick<InstanceState, "id" | "teamId" | "installationId" | "userId" | "lastReconnectEventAt">,
  input: { attempt: number; lastError: string },
): Promise<number> {
  // Bounded like every lastError the recorder writes: an upstream can answer with a 100 KB page.
  const lastError = boundDetail(await deps.secrets.text(state.id, input.lastError));
  const delayMs = deps.tunables.reconnectDelay(input.attempt - 1);
  const now = deps.clock();
  const emit = shouldEmitReconnecting({
    attempt: input.attempt - 1,
    lastEmittedAt: state.lastReconnectEventAt?.getTime() ?? null,
    now: now.getTime(),
  });
  await recordReconnectScheduled(deps.db, {
    instanceId: state.id,
    attempt: input.attempt,
    nextRetryAt: new Date(now.getTime() + delayMs),
    lastError,
    eventEmittedAt: emit ? now : undefined,
  });
  if (emit) {
    await deps.recorder.event(state, "server_reconnecting", {
      attempt: input.attempt,
      nextRetryMs: delayMs,
      lastError,
    });
  }
  return delayMs;
}

/** Starts the reconnect loop of an instance unless one exists (at most one reconnect job per instance). */
export async function startReconnectLoop(
  deps: ReconnectLoopDeps,
  instanceId: string,
  lastError: string,
): Promise<boolean> {
  if (await deps.jobs.hasReconnect(instanceId)) return false;
  const state = await getInstanceState(deps.db, instanceId);
  if (!state || !isRetrying(state.status)) return false;
  const delayMs = await recordNextAttempt(deps, { ...state, lastReconnectEventAt: null }, { attempt: 1, lastError });
  return deps.jobs.scheduleReconnect(instanceId, delayMs);
}
