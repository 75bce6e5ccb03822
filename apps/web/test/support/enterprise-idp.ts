import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { getDb } from "@switchboard/db/client";
import { env } from "@switchboard/runtime/env";
import { issuerUrl, mcpResourceUrl } from "@switchboard/runtime/mcp-authorization";
import { getAuth } from "~/server/auth";
import { ID_JAG_TYP, JWT_BEARER_GRANT } from "~/server/auth/id-jag-assertion";

/**
 * An enterprise identity provider for ID-JAG tests: an ES256 key generated here, its JWKS served over HTTP on
 * 127.0.0.1, trusted by the deployment (an enabled `EnterpriseIdpIssuer`); and a confidential MCP client
 * registered with the console's authorization server for the JWT bearer grant.
 */
export async function startEnterpriseIdp() {
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const kid = `k-${randomBytes(3).toString("hex")}`;
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" };
  const server: Server = createServer((req, res) => {
    if (req.url === "/jwks") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [jwk] }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${origin}/tenant-${kid}`;
  await getDb().enterpriseIdpIssuer.create({
    data: { name: "Fuzz IdP", issuer, jwksUrl: `${origin}/jwks`, memberClaim: "sub", enabled: true },
  });

  return {
    issuer,
    /** An assertion signed by this IdP (or by `key`), for this Switchboard, with `claims` over the defaults. */
    async sign(
      claims: Record<string, unknown>,
      { key = privateKey, typ = ID_JAG_TYP }: { key?: CryptoKey; typ?: string } = {},
    ) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        iss: issuer,
        aud: issuerUrl(env().APP_URL),
        resource: mcpResourceUrl(env().APP_URL, null),
        scope: "mcp",
        jti: `jti-${randomBytes(6).toString("hex")}`,
        iat: now,
        exp: now + 300,
        ...claims,
      })
        .setProtectedHeader({ alg: "ES256", kid, typ })
        .sign(key);
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A confidential MCP client registered for the JWT bearer grant (RFC 7591), as an enterprise agent registers. */
export async function registerJwtBearerClient() {
  const response = await getAuth().handler(
    new Request(new URL("/api/auth/oauth2/register", env().APP_URL), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: `Enterprise agent ${randomBytes(3).toString("hex")}`,
        grant_types: [JWT_BEARER_GRANT],
        response_types: [],
        token_endpoint_auth_method: "client_secret_basic",
      }),
    }),
  );
  if (response.status !== 201) throw new Error(`registration answered ${response.status}: ${await response.text()}`);
  const body = (await response.json()) as { client_id: string; client_secret: string };
  return { clientId: body.client_id, clientSecret: body.client_secret };
}

export function basicAuth(client: { clientId: string; clientSecret: string }): string {
  return `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString("base64")}`;
}
