import { holdsConnection, isRetrying } from "./groups";
import type { InstanceStatus } from "./statuses";

/**
 * The status message of a stdio instance whose process ran on a worker that stopped without handing it over
 * (killed, lost its host): whoever notices (the gateway's sweep of worker heartbeats) writes it.
 */
export const WORKER_LOST_MESSAGE = "The worker running this server stopped; it restarts on the next worker.";

/** What the MCP route answers for a call to a stdio server while no worker runs at all. */
export const NO_WORKER_MESSAGE =
  "The worker that runs stdio servers is not running; this server works again as soon as a worker starts.";

/**
 * What the MCP route answers for a call to a stdio server whose worker's bridge does not answer (refused, reset,
 * closed before an answer): the worker died and its heartbeat has not run out yet, so nobody has said so.
 */
export const WORKER_NOT_ANSWERING_MESSAGE =
  "The worker running this server is not answering; it restarts on the next worker.";

/**
 * What the MCP route answers for a call to a stdio server whose lease still names a worker that stopped at the
 * address the route reached (a worker restarted in its place): the lease runs out within seconds, then the
 * worker asked starts the server.
 */
export const WORKER_HANDOVER_MESSAGE =
  "The worker that ran this server stopped; the next one takes it over within seconds, so try again shortly.";

/**
 * Where an instance goes when the worker that ran its process is gone: connected or on its way there means a
 * process that no longer exists, so it goes offline (the next worker's reconciliation or reconnect loop starts
 * it again). Anything else already says what it waits for (a retry, a person, a restart job): null, unchanged.
 */
export function afterWorkerLost(status: InstanceStatus): InstanceStatus | null {
  return holdsConnection(status) && !isRetrying(status) ? "offline" : null;
}
