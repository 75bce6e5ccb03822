/**
 * Core's upstream OAuth client as the conformance suite's client scenarios run it (`auth/*`): the suite starts
 * this file with its MCP server's URL, the scenario in MCP_CONFORMANCE_SCENARIO, the revision in
 * MCP_CONFORMANCE_PROTOCOL_VERSION and pre-registered credentials in MCP_CONFORMANCE_CONTEXT. It does what the
 * console and a member's browser do together: `startAuthorization`, follow the authorization server's redirect
 * (its /authorize approves at once), `finishAuthorization` with the code and the response's `iss`, then list and
 * call tools with the token. A 401 authorizes again and a 403 steps up (`stepUpScope`), three times at most.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed } from "@modelcontextprotocol/sdk/shared/auth.js";
import {
  finishAuthorization,
  startAuthorization,
  stepUpScope,
  type OAuthClientStore,
  type OAuthTokenSet,
} from "@switchboard/core/oauth";

const serverUrl = process.argv[2];
if (!serverUrl) throw new Error("usage: oauth-conformance-client <server-url>");
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as {
  client_id?: string;
  client_secret?: string;
};

/** The installation's client store, with the database store's rules (`installationOAuthClients`). */
let stored: OAuthClientInformationMixed | undefined = context.client_id
  ? { client_id: context.client_id, ...(context.client_secret ? { client_secret: context.client_secret } : {}) }
  : undefined;
const clients: OAuthClientStore = {
  clientInformation: async () => stored,
  async saveClientInformation(info) {
    const current = stored as (OAuthClientInformationMixed & { issuer?: string }) | undefined;
    const next = info as OAuthClientInformationMixed & { issuer?: string };
    if (!current || current.client_id === next.client_id || (current.issuer && current.issuer !== next.issuer))
      stored = info;
  },
  forgetClientInformation: async () => void (stored = undefined),
};
const redirectUrl = "http://localhost:3000/callback";
// The suite's authorization servers never fetch the document: any https URL with a path stands for the console's.
const clientMetadataUrl = "https://conformance-test.local/client-metadata.json";
let tokens: OAuthTokenSet | undefined;

async function authorize(scope: string | undefined): Promise<void> {
  const started = await startAuthorization({ serverUrl: serverUrl!, clients, redirectUrl, clientMetadataUrl, scope });
  const approved = await fetch(started.authorizationUrl, { redirect: "manual" });
  const location = approved.headers.get("location");
  if (!location) throw new Error(`the authorization endpoint did not redirect (${approved.status})`);
  const back = new URL(location);
  tokens = await finishAuthorization({
    serverUrl: serverUrl!,
    clients,
    redirectUrl,
    clientMetadataUrl,
    code: back.searchParams.get("code") ?? "",
    codeVerifier: started.codeVerifier,
    iss: back.searchParams.get("iss"),
  });
}

let authorizations = 0;
const authorized: typeof fetch = async (input, init) => {
  for (;;) {
    const headers = new Headers(init?.headers);
    if (tokens) headers.set("authorization", `Bearer ${tokens.accessToken}`);
    const response = await fetch(input, { ...init, headers });
    if ((response.status !== 401 && response.status !== 403) || ++authorizations > 3) return response;
    const { scope } = extractWWWAuthenticateParams(response);
    await authorize(response.status === 403 ? stepUpScope(tokens?.scope, scope) : scope);
  }
};

const REV_2026 = "2026-07-28";
const info = { name: "switchboard-oauth-conformance", version: "1.0.0" };
if (process.env.MCP_CONFORMANCE_PROTOCOL_VERSION === REV_2026) {
  const client = new ClientV2(info, { versionNegotiation: { mode: { pin: REV_2026 } } });
  await client.connect(new TransportV2(new URL(serverUrl), { fetch: authorized }));
  await client.listTools();
  await client.callTool({ name: "test-tool", arguments: {} });
  await client.close();
} else {
  const client = new Client(info);
  await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { fetch: authorized }));
  await client.listTools();
  await client.callTool({ name: "test-tool", arguments: {} });
  await client.close();
}
