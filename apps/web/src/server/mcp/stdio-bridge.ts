import "server-only";
import type { UpstreamTarget } from "@switchboard/core/upstream";

/**
 * Where the worker hosting a stdio instance serves it. Until the worker's bridge lands, stdio instances are
 * unreachable from the route, and calls to them fail with a clear message (classified as `offline`).
 */
export async function resolveStdioBridge(instanceId: string): Promise<UpstreamTarget> {
  const error = new Error(`The worker is not serving stdio instance ${instanceId} yet`) as Error & { code: string };
  error.code = "ECONNREFUSED";
  throw error;
}
