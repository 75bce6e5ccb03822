import type { JobPayload } from "@switchboard/core/contracts";
import type { JobContext, WorkerDeps } from "../deps";
import { refreshCatalogue } from "../discovery-run";
import { withInstanceLock } from "../instance-lock";

/** An upstream's list_changed, relayed by the route: refresh an online instance's catalogue in place. */
export async function processCatalogueRefresh(
  payload: JobPayload<"instance.catalogue-refresh">,
  ctx: JobContext,
  deps: WorkerDeps,
) {
  return withInstanceLock(deps, ctx, payload.instanceId, () =>
    refreshCatalogue(deps, ctx, payload.instanceId, payload.kind),
  );
}
