import type { JobPayload } from "@switchboard/core/contracts";
import { classifyError } from "@switchboard/core/policies";
import { isRetrying } from "@switchboard/core/status";
import { getInstanceState, RECONNECT_RESET } from "@switchboard/db/queries/instance-lifecycle";
import { PermanentlyFailedError } from "@switchboard/core/stdio";
import type { JobContext, WorkerDeps } from "../deps";
import { markPermanentlyFailed } from "../permanent-failure";
import { connectAndDiscover, type DiscoveryDeps } from "../discovery-run";
import { withInstanceLock, type LockDeps } from "../instance-lock";
import { recordNextAttempt, type NextAttemptDeps } from "../reconnect-schedule";

export type ReconnectDeps = LockDeps & DiscoveryDeps & NextAttemptDeps & Pick<WorkerDeps, "metrics">;

/**
 * One attempt of the reconnect loop of an offline / error instance. The job is the loop: after a failed
 * attempt it moves itself back to the delayed set with the next backoff delay, under the same id, so there is
 * never a second reconnect job for the instance. A probe (connect + initialize) comes first and writes no
 * status, so a server that stays down does not flood the log with connecting/offline pairs; only a probe that
 * succeeds moves the instance to connecting and re-discovers.
 */
export async function processReconnect(
  payload: JobPayload<"instance.reconnect">,
  ctx: JobContext,
  deps: ReconnectDeps,
) {
  const { instanceId } = payload;
  return withInstanceLock(deps, ctx, instanceId, async () => {
    const state = await getInstanceState(deps.db, instanceId);
    if (!state) return { skipped: "instance not found" };
    if (!isRetrying(state.status)) return { skipped: state.status };
    const attempt = Math.max(1, state.reconnectAttempt);
    ctx.logger.debug({ attempt }, "reconnect attempt");
    deps.metrics?.reconnectAttempt();

    try {
      await deps.connections.evict(instanceId);
      await deps.connections.get(instanceId);
    } catch (error) {
      if (error instanceof PermanentlyFailedError) {
        await markPermanentlyFailed(deps, state, Math.max(1, deps.connections.stdioState(instanceId).crashesInWindow));
        return { outcome: "permanently_failed" };
      }
      const c = classifyError(error);
      if (c.status === "requires_reauth") {
        await deps.recorder.transition(instanceId, "requires_reauth", {
          message: c.message,
          data: { ...RECONNECT_RESET, lastError: c.message },
        });
        await deps.connections.evict(instanceId);
        return { outcome: "requires_reauth" };
      }
      if (c.kind === "egress_refused") {
        // Refused by the egress rules (say, the name now resolves to a loopback address): a configuration
        // matter that retrying cannot fix. The instance waits in error with the reason until something changes.
        await deps.recorder.transition(instanceId, "error", {
          message: c.message,
          data: { ...RECONNECT_RESET, lastError: c.message },
        });
        await deps.connections.evict(instanceId);
        return { outcome: "egress_refused" };
      }
      if (c.status !== state.status) {
        await deps.recorder.transition(instanceId, c.status, { message: c.message, data: { lastError: c.message } });
      }
      await deps.connections.evict(instanceId);
      const delayMs = await recordNextAttempt(deps, state, { attempt: attempt + 1, lastError: c.message });
      return ctx.rescheduleSelf(delayMs);
    }

    const outcome = await connectAndDiscover(deps, ctx, instanceId, { freshConnection: false });
    if (outcome.kind === "online") {
      await deps.recorder.event(state, "server_reconnected", {
        attemptsTaken: attempt,
        capabilities: outcome.result.capabilities as Record<string, unknown>,
      });
      return { outcome: "online", attemptsTaken: attempt };
    }
    if (outcome.kind === "failed" && outcome.retry) {
      const latest = (await getInstanceState(deps.db, instanceId)) ?? state;
      const delayMs = await recordNextAttempt(deps, latest, {
        attempt: attempt + 1,
        lastError: outcome.classification.message,
      });
      return ctx.rescheduleSelf(delayMs);
    }
    return { outcome: outcome.kind };
  });
}
