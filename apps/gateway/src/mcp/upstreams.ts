import { ConnectionPool, nodeFetch, type ListKind, type UpstreamTarget } from "@switchboard/core/upstream";
import { getDb } from "@switchboard/db/client";
import { getCipher } from "@switchboard/db/crypto";
import { upstreamEgressFetch } from "@switchboard/runtime/egress";
import { loadInstanceLaunch } from "@switchboard/db/launch";
import { logger } from "@switchboard/runtime/logger";
import { oauthUpstreamFetch } from "../oauth/upstream-auth";
import { resolveStdioBridge } from "./stdio-bridge";
import { workerJobs } from "./worker-jobs";

/**
 * One live upstream connection per instance in this process, shared by every MCP session of that member.
 * Remote servers are reached directly with the member's resolved headers; stdio servers run in the worker and
 * are reached through its internal Streamable HTTP bridge, so both go through the same client code.
 */
export class UnknownInstanceError extends Error {
  override name = "UnknownInstanceError";
}

/**
 * Upstream MCP traffic goes through Node's HTTP client (core's nodeFetch), never through Next's patched fetch:
 * remote servers with the egress rules applied to the address each connection goes to, the worker's bridge
 * (an address we configured ourselves) without them.
 */

async function resolve(instanceId: string): Promise<UpstreamTarget> {
  const loaded = await loadInstanceLaunch(getDb(), getCipher(), instanceId, { stdio: "elsewhere" });
  if (!loaded) throw new UnknownInstanceError(`instance ${instanceId} no longer exists`);
  if (!loaded.launch) return resolveStdioBridge(instanceId, nodeFetch);
  // A member who authorized with OAuth: their access token rides on every request (read per request, so a
  // refresh by the worker is picked up without reconnecting).
  const upstreamFetch = upstreamEgressFetch();
  const fetch = (await oauthUpstreamFetch(instanceId, upstreamFetch)) ?? upstreamFetch;
  return { launch: loaded.launch, fetch };
}

let pool: ConnectionPool | undefined;

/**
 * An upstream's list_changed on a shared connection asks the worker to refresh the instance's catalogue; the
 * worker's catalogue_changed then reaches every session of the member as list_changed. For a 2026-07-28 upstream
 * this keeps a `subscriptions/listen` stream open per pooled connection.
 */
function onListChanged(instanceId: string, kind: ListKind): void {
  workerJobs()
    .requestCatalogueRefresh(instanceId, kind)
    .catch((err: unknown) => logger.warn({ err, instanceId, kind }, "catalogue refresh not queued"));
}

export function upstreamPool(): ConnectionPool {
  pool ??= new ConnectionPool({
    resolve,
    onListChanged,
    clientInfo: { name: "switchboard-proxy", version: "0.1.0" },
  });
  return pool;
}

/** Kept here for the session code that evicts an instance's connection and its secrets together. */
export { forgetSecrets } from "./secrets";
