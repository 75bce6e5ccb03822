import type { JobPayload } from "@switchboard/core/contracts";
import { isDiscoverable } from "@switchboard/core/status";
import { getInstanceState } from "@switchboard/db/queries/instance-lifecycle";
import type { JobContext } from "../deps";
import { connectAndDiscover, type DiscoveryDeps } from "../discovery-run";
import { withInstanceLock, type LockDeps } from "../instance-lock";
import { startReconnectLoop, type ReconnectLoopDeps } from "../reconnect-schedule";

export type DiscoverDeps = LockDeps & DiscoveryDeps & ReconnectLoopDeps;

export async function processDiscover(payload: JobPayload<"instance.discover">, ctx: JobContext, deps: DiscoverDeps) {
  return withInstanceLock(deps, ctx, payload.instanceId, async () => {
    const state = await getInstanceState(deps.db, payload.instanceId);
    if (!state) return { skipped: "instance not found" };
    if (!isDiscoverable(state.status)) return { skipped: state.status };
    const fresh = payload.reason === "config_changed" || payload.reason === "restart" || state.status === "restarting";
    const outcome = await connectAndDiscover(deps, ctx, payload.instanceId, { freshConnection: fresh });
    if (outcome.kind === "failed" && outcome.retry) {
      await startReconnectLoop(deps, payload.instanceId, outcome.classification.message);
    }
    return { outcome: outcome.kind };
  });
}
