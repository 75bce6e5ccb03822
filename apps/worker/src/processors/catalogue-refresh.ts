import type { JobPayload } from "@switchboard/core/contracts";
import type { JobContext } from "../deps";
import { refreshCatalogue, type CatalogueDeps } from "../discovery-run";
import { withInstanceLock, type LockDeps } from "../instance-lock";

export type CatalogueRefreshDeps = LockDeps & CatalogueDeps;

/** An upstream's list_changed, relayed by the route: refresh an online instance's catalogue in place. */
export async function processCatalogueRefresh(
  payload: JobPayload<"instance.catalogue-refresh">,
  ctx: JobContext,
  deps: CatalogueRefreshDeps,
) {
  return withInstanceLock(deps, ctx, payload.instanceId, () =>
    refreshCatalogue(deps, ctx, payload.instanceId, payload.kind),
  );
}
