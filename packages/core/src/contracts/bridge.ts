import { z } from "zod";

/**
 * The contract of the worker's stdio bridge, shared by the worker (which serves it) and the gateway's MCP
 * route (which calls it): where a hosted stdio instance is reachable and which worker holds it.
 */

/** Value of an instance's stdio lease under `redisKeys.stdioLease`. */
export const stdioLeaseSchema = z.object({
  workerId: z.string(),
  /** Base URL of the holder's internal bridge, e.g. http://10.0.0.5:7410 */
  url: z.string(),
});
export type StdioLease = z.infer<typeof stdioLeaseSchema>;

/** Path of one instance's Streamable HTTP endpoint on a bridge. */
export function bridgeInstancePath(instanceId: string): string {
  return `/instances/${encodeURIComponent(instanceId)}/mcp`;
}

/** Header a bridge sets on a 421 answer: the URL of the worker that holds the instance. */
export const BRIDGE_HOLDER_HEADER = "x-switchboard-bridge";
