import { bridgeInstancePath } from "@switchboard/core/contracts";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { WorkerUnavailableError } from "@switchboard/core/stdio";
import { bridgeFetch, type UpstreamTarget } from "@switchboard/core/upstream";
import { env } from "@switchboard/runtime/env";
import { workerRegistry } from "./worker-sweep";

/**
 * Stdio servers run in the workers; the route reaches them over the worker's internal Streamable HTTP bridge,
 * through the same client code as any remote server. The worker holding the instance's lease serves it; when
 * no worker holds it (never started, or stopped when idle), any worker's bridge starts it on the first request.
 * When no worker has a current heartbeat, nothing could run it: the call is answered at once with one sentence
 * (core WorkerUnavailableError) instead of retrying a socket nobody listens on. A worker that died but whose
 * heartbeat has not run out yet is still counted: its bridge's refused or dropped connection is answered with
 * core WorkerNotAnsweringError's sentence (core bridgeFetch), classified and retried like the socket error.
 */
export async function resolveStdioBridge(instanceId: string, fetchImpl: FetchLike): Promise<UpstreamTarget> {
  const { BRIDGE_SECRET, BRIDGE_URL } = env();
  if (!BRIDGE_SECRET) {
    const error = new Error(
      "This console cannot reach stdio servers: BRIDGE_SECRET is not set (it must match the workers')",
    ) as Error & { code: string };
    error.code = "ECONNREFUSED";
    throw error;
  }
  const { liveWorkers, lease } = await workerRegistry().bridgeView(instanceId);
  if (liveWorkers === 0) throw new WorkerUnavailableError();
  const base = lease?.url ?? BRIDGE_URL;
  return {
    launch: {
      transport: "streamable_http",
      url: new URL(bridgeInstancePath(instanceId), base).toString(),
      headers: { authorization: `Bearer ${BRIDGE_SECRET}` },
    },
    // A bridge that refuses or drops the connection is a worker that died before its heartbeat ran out.
    fetch: bridgeFetch(fetchImpl),
  };
}
