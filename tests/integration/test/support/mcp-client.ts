import { getDb } from "@switchboard/db/client";
import { env } from "@switchboard/runtime/env";
import { issuerUrl, mcpResourceUrl } from "@switchboard/runtime/mcp-authorization";
import { getAuth } from "~/server/auth";
import { routeBase } from "../../../../apps/gateway/test/support/mcp";

/** An MCP client registered with the authorization server, as dynamic registration leaves it. */
export async function registerOAuthClient(name: string) {
  const unique = Math.random().toString(36).slice(2, 10);
  return getDb().oauthClient.create({
    data: {
      id: `oc-${unique}`,
      clientId: `client-${unique}`,
      name,
      redirectUris: ["http://127.0.0.1:9/callback"],
      tokenEndpointAuthMethod: "none",
      createdAt: new Date(),
    },
  });
}

/**
 * An access token as the authorization server issues it after consent (subject, client, resource): by default
 * for the whole route, `/api/mcp`; with `resource`, for one server's route (`/api/mcp/servers/{slug}`).
 */
export async function accessToken(userId: string, clientId: string, resource: string | null = null) {
  const appUrl = env().APP_URL;
  const now = Math.floor(Date.now() / 1000);
  const { token } = await getAuth().api.signJWT({
    body: {
      payload: {
        sub: userId,
        azp: clientId,
        iss: issuerUrl(appUrl),
        aud: mcpResourceUrl(appUrl, resource),
        iat: now,
        exp: now + 600,
        scope: "mcp",
      },
    },
  });
  return token;
}

/** What a client sends first (a session would be the first thing the route creates for it), at `path`. */
export function initialize(token: string, path = "/api/mcp", clientName = "integration-test") {
  return fetch(new URL(path, routeBase()), {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: clientName, version: "1" } },
    }),
  });
}
