import { enqueueOAuth, reportCallFailed, requestCatalogueRefresh, requestRediscovery } from "@switchboard/runtime/jobs";
import { usesOAuth } from "../oauth/upstream-auth";
import type { WorkerJobs } from "./sinks";

/** The route's requests to the worker, over the shared BullMQ queue (deduplicated per instance there). */
export function workerJobs(): WorkerJobs {
  return {
    requestDiscovery: (instanceId) => requestRediscovery({ instanceId }),
    requestCatalogueRefresh: (instanceId, kind) => requestCatalogueRefresh({ instanceId, kind }),
    reportCallFailed: async (instanceId, status, message, startedAt) => {
      // A 401 on an OAuth instance is first a refresh for the worker; it writes requires_reauth only if that fails.
      if (status === "requires_reauth" && (await usesOAuth(instanceId)))
        return enqueueOAuth({ instanceId, event: "unauthorized" });
      return reportCallFailed({
        instanceId,
        status,
        message: message.slice(0, 2_000),
        ...(startedAt === undefined ? {} : { startedAt: new Date(startedAt).toISOString() }),
      });
    },
  };
}
