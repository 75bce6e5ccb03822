import "server-only";
import { reportCallFailed, requestRediscovery } from "../jobs";
import type { WorkerJobs } from "./sinks";

/** The route's requests to the worker, over the shared BullMQ queue (deduplicated per instance there). */
export function workerJobs(): WorkerJobs {
  return {
    requestDiscovery: (instanceId) => requestRediscovery({ instanceId }),
    reportCallFailed: (instanceId, status, message) => reportCallFailed({ instanceId, status, message: message.slice(0, 2_000) }),
  };
}
