import { bridgeInstancePath, redisKeys, stdioLeaseSchema } from "@switchboard/core/contracts";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { UpstreamTarget } from "@switchboard/core/upstream";
import { env } from "@switchboard/runtime/env";
import { redis } from "@switchboard/runtime/redis";

/**
 * Stdio servers run in the workers; the route reaches them over the worker's internal Streamable HTTP bridge,
 * through the same client code as any remote server. The worker holding the instance's lease serves it; when
 * no worker holds it (never started, or stopped when idle), any worker's bridge starts it on the first request.
 */
export async function resolveStdioBridge(instanceId: string, fetchImpl: FetchLike): Promise<UpstreamTarget> {
  const { BRIDGE_SECRET, BRIDGE_URL, REDIS_PREFIX } = env();
  if (!BRIDGE_SECRET) {
    const error = new Error(
      "This console cannot reach stdio servers: BRIDGE_SECRET is not set (it must match the workers')",
    ) as Error & { code: string };
    error.code = "ECONNREFUSED";
    throw error;
  }
  const raw = await redis().get(redisKeys.stdioLease(REDIS_PREFIX, instanceId));
  const lease = raw ? stdioLeaseSchema.safeParse(JSON.parse(raw)) : null;
  const base = lease?.success ? lease.data.url : BRIDGE_URL;
  return {
    launch: {
      transport: "streamable_http",
      url: new URL(bridgeInstancePath(instanceId), base).toString(),
      headers: { authorization: `Bearer ${BRIDGE_SECRET}` },
    },
    fetch: fetchImpl,
  };
}
