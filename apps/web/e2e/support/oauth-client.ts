import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, type Page } from "@playwright/test";

/**
 * An MCP client's OAuth side as the SDK expects an application to provide it (`OAuthClientProvider`), keeping
 * its state in memory. The browser part is Playwright's: `redirectToAuthorization` only records the URL, a test
 * opens it in a page, and the page's final redirect to `redirectUrl` (never served: the test intercepts it)
 * carries the code.
 */
export class TestOAuthProvider implements OAuthClientProvider {
  authorizationUrl: URL | null = null;
  private client: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = "";

  constructor(
    readonly redirectUrl: string,
    private readonly name: string,
    /** Set: the client identifies itself by this Client ID Metadata Document URL instead of registering. */
    readonly clientMetadataUrl?: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

export function oauthTransport(baseURL: string, provider: OAuthClientProvider, path = "/api/mcp") {
  return new StreamableHTTPClientTransport(new URL(path, baseURL), { authProvider: provider });
}

/**
 * Connects with the provider's tokens; without any, starts the flow (the route's 401 leads the SDK to the
 * metadata, registration and the authorization URL) and hands the URL to `authorize`, which returns the code.
 */
export async function connectWithOAuth(
  baseURL: string,
  provider: TestOAuthProvider,
  authorize: (url: URL) => Promise<string>,
  path = "/api/mcp",
): Promise<Client> {
  const first = oauthTransport(baseURL, provider, path);
  const client = new Client({ name: "switchboard-e2e-oauth", version: "1.0.0" });
  try {
    await client.connect(first);
    return client;
  } catch (err) {
    if (!provider.authorizationUrl) throw err;
  }
  const code = await authorize(provider.authorizationUrl);
  await first.finishAuth(code);
  provider.authorizationUrl = null;
  const again = new Client({ name: "switchboard-e2e-oauth", version: "1.0.0" });
  await again.connect(oauthTransport(baseURL, provider, path));
  return again;
}

/**
 * The client's redirect URI, as a real client on the member's machine listens for it: a loopback HTTP server
 * that records the callback URL and answers with a blank page.
 */
export async function startCallbackListener(): Promise<{
  url: string;
  received: () => URL | null;
  close: () => Promise<void>;
}> {
  let last: URL | null = null;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", `http://127.0.0.1`);
    // The browser also asks for /favicon.ico.
    if (url.pathname === "/callback") last = url;
    res.writeHead(200, { "content-type": "text/html" }).end("<p>You can close this window.</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    received: () => last,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Opens the authorization URL in `page`, runs `steps` (sign in, consent) and waits for the browser to reach
 * the client's redirect URI. Returns the callback URL.
 */
export async function followAuthorization(
  page: Page,
  url: URL,
  listener: { received: () => URL | null },
  steps: (page: Page) => Promise<void>,
): Promise<URL> {
  await page.goto(url.toString());
  await steps(page);
  await expect.poll(() => listener.received()?.toString() ?? null, { timeout: 15_000 }).not.toBeNull();
  return listener.received()!;
}

export function codeOf(callback: URL): string {
  const code = callback.searchParams.get("code");
  if (!code)
    throw new Error(
      `The authorization ended without a code: ${callback.searchParams.get("error")} ${callback.searchParams.get("error_description") ?? ""}`,
    );
  return code;
}
