import type { JobPayload } from "@switchboard/core/contracts";
import { isDiscoverable } from "@switchboard/core/status";
import { getInstanceState } from "@switchboard/db/queries/instance";
import type { JobContext, WorkerDeps } from "../deps";
import { connectAndDiscover } from "../discovery-run";
import { withInstanceLock } from "../instance-lock";
import { startReconnectLoop } from "../reconnect-schedule";

export async function processDiscover(payload: JobPayload<"instance.discover">, ctx: JobContext, deps: WorkerDeps) {
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
