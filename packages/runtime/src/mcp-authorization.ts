/**
 * Where the MCP route's OAuth pieces live, for the gateway (resource server: 401 challenge, protected-resource
 * metadata, token checks) and the console (Better Auth as the authorization server). Pure URL arithmetic.
 */

/** `mcp` names what the route offers; `offline_access` asks for a refresh token. */
export const MCP_SCOPES = ["mcp", "offline_access"] as const;

/** The authorization server's issuer: Better Auth's base URL. */
export function issuerUrl(appUrl: string): string {
  return new URL("/api/auth", appUrl).toString();
}

/** The resource indicator (RFC 8707) of the route, or of one installation's route. */
export function mcpResourceUrl(appUrl: string, scope: string | null): string {
  const base = new URL("/api/mcp", appUrl).toString();
  return scope === null ? base : `${base}/servers/${encodeURIComponent(scope)}`;
}

/** The slug a per-server resource indicator names, or null when it is not one of ours. */
export function slugOfResource(appUrl: string, resource: string): string | null {
  const prefix = `${mcpResourceUrl(appUrl, null)}/servers/`;
  if (!resource.startsWith(prefix)) return null;
  const slug = resource.slice(prefix.length);
  // Installation slugs (the install form's rule): lowercase letters, digits and single dashes, at most 40.
  return slug.length <= 40 && /^[a-z0-9]+(-[a-z0-9]+)*$/.test(slug) ? slug : null;
}

/** Whether the route's URL may be a protected resource at all (HTTPS, or plain HTTP on loopback for development). */
export function mcpAuthorizationAvailable(appUrl: string): boolean {
  const url = new URL(appUrl);
  return url.protocol === "https:" || ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
}
