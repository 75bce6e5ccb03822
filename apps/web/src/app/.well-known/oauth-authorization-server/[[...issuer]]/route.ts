import { oauthProviderAuthServerMetadata } from "@better-auth/oauth-provider";
import { env } from "@switchboard/runtime/env";
import { getAuth } from "~/server/auth";
import { mcpAuthorizationAvailable } from "@switchboard/runtime/mcp-authorization";
import { getDb } from "@switchboard/db/client";
import { withIdJagAdvertised } from "~/server/auth/id-jag";

export const dynamic = "force-dynamic";

/**
 * RFC 8414 authorization server metadata where MCP clients look for it: under the issuer's path
 * (`/.well-known/oauth-authorization-server/api/auth`) and, for clients written before protected-resource
 * metadata, at the root. Better Auth's provider builds the document.
 */
export async function GET(request: Request, { params }: { params: Promise<{ issuer?: string[] }> }): Promise<Response> {
  const { issuer } = await params;
  const path = (issuer ?? []).join("/");
  if ((path !== "" && path !== "api/auth") || !mcpAuthorizationAvailable(env().APP_URL)) {
    return Response.json({ error: "not_found" }, { status: 404 });
  }
  const auth = getAuth() as unknown as Parameters<typeof oauthProviderAuthServerMetadata>[0];
  const response = await oauthProviderAuthServerMetadata(auth, { headers: { "access-control-allow-origin": "*" } })(
    request,
  );
  if (!response.ok) return response;
  // The JWT bearer grant (ID-JAG) is advertised only while an enterprise identity provider is enabled.
  const document = await withIdJagAdvertised(getDb(), (await response.json()) as Record<string, unknown>);
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return Response.json(document, { status: response.status, headers });
}
