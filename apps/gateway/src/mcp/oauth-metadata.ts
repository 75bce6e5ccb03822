import type { IncomingMessage, ServerResponse } from "node:http";
import { env } from "@switchboard/runtime/env";
import {
  issuerUrl,
  MCP_SCOPES,
  mcpAuthorizationAvailable,
  mcpResourceUrl,
  slugOfResource,
} from "@switchboard/runtime/mcp-authorization";

/**
 * RFC 9728 protected-resource metadata for the MCP route, served by the public process beside the route (the
 * authorization server's own metadata, RFC 8414, is Better Auth's, in the console). Clients find it from the
 * route's 401 (`WWW-Authenticate: Bearer resource_metadata="..."`) or at the well-known path under the
 * route's path: `/.well-known/oauth-protected-resource/api/mcp[/servers/{slug}]`.
 */

const PREFIX = "/.well-known/oauth-protected-resource";

/** The route (scope null) or installation route whose metadata this path asks for, or null when it is not ours. */
export function matchProtectedResourcePath(url: string | undefined): { scope: string | null } | null {
  if (!url) return null;
  const q = url.indexOf("?");
  const path = (q === -1 ? url : url.slice(0, q)).replace(/\/+$/, "");
  // A client that probes the root (no path) gets the whole route's metadata.
  if (path === PREFIX || path === `${PREFIX}/api/mcp`) return { scope: null };
  if (!path.startsWith(`${PREFIX}/api/mcp/servers/`)) return null;
  const appUrl = env().APP_URL;
  const slug = slugOfResource(appUrl, mcpResourceUrl(appUrl, null) + path.slice(`${PREFIX}/api/mcp`.length));
  return slug ? { scope: slug } : null;
}

export function protectedResourceMetadataUrl(scope: string | null): string {
  const resource = new URL(mcpResourceUrl(env().APP_URL, scope));
  return new URL(`${PREFIX}${resource.pathname}`, resource.origin).toString();
}

export function protectedResourceMetadata(scope: string | null) {
  const appUrl = env().APP_URL;
  return {
    resource: mcpResourceUrl(appUrl, scope),
    authorization_servers: [issuerUrl(appUrl)],
    bearer_methods_supported: ["header"],
    scopes_supported: [...MCP_SCOPES],
    resource_name: scope === null ? "Switchboard MCP gateway" : `Switchboard MCP server ${scope}`,
  };
}

export function handleProtectedResourceMetadata(req: IncomingMessage, res: ServerResponse, scope: string | null): void {
  const headers = { "access-control-allow-origin": "*", "cache-control": "public, max-age=300" };
  if (req.method === "OPTIONS") {
    res.writeHead(204, {
      ...headers,
      "access-control-allow-methods": "GET, HEAD, OPTIONS",
      "access-control-allow-headers": "mcp-protocol-version",
    });
    return void res.end();
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { allow: "GET, HEAD, OPTIONS", "content-type": "application/json" });
    return void res.end(JSON.stringify({ error: "method_not_allowed" }));
  }
  if (!mcpAuthorizationAvailable(env().APP_URL)) {
    res.writeHead(404, { "content-type": "application/json" });
    return void res.end(
      JSON.stringify({
        error: "not_found",
        error_description: "OAuth sign-in is not available on this deployment; use a personal access token.",
      }),
    );
  }
  const body = JSON.stringify(protectedResourceMetadata(scope));
  res.writeHead(200, { ...headers, "content-type": "application/json" });
  res.end(req.method === "HEAD" ? undefined : body);
}

/**
 * The route's `WWW-Authenticate` challenge (RFC 6750 + RFC 9728): where the resource metadata is and which
 * scopes to ask for; with `error="invalid_token"` when a token was presented and refused.
 */
export function bearerChallenge(scope: string | null, error?: { description: string }): string {
  const parts = [`Bearer realm="switchboard"`];
  if (mcpAuthorizationAvailable(env().APP_URL)) {
    parts.push(`resource_metadata="${protectedResourceMetadataUrl(scope)}"`, `scope="${MCP_SCOPES.join(" ")}"`);
  }
  if (error) parts.push(`error="invalid_token"`, `error_description="${error.description.replace(/["\\]/g, "")}"`);
  return parts.join(", ");
}
