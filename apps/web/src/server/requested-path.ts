/** The request header in which the proxy (src/proxy.ts) passes the page's path and query to server components. */
export const REQUESTED_PATH_HEADER = "x-switchboard-requested-path";

/** The path to come back to after sign-in: the page asked for when it lies under `prefix`, else `prefix`. */
export function returnPath(requested: string | null, prefix: string): string {
  if (!requested || !requested.startsWith("/") || requested.startsWith("//")) return prefix;
  return requested === prefix || requested.startsWith(`${prefix}/`) || requested.startsWith(`${prefix}?`)
    ? requested
    : prefix;
}
