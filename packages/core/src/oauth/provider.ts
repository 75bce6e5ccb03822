import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { OAuthClientStore } from "./store";

export interface FlowProviderOptions {
  clients: OAuthClientStore;
  /** The console's callback (`APP_URL/api/oauth/callback`), registered with the client and sent with the flow. */
  redirectUrl: string;
  clientName?: string;
  /** Our Client ID Metadata Document (https), used as the client id where the server accepts one. */
  clientMetadataUrl?: string;
  /** What the flow discovered and checked already: `auth()` uses it instead of discovering again. */
  discovery?: OAuthDiscoveryState;
  /** Starting: the state to send. */
  state?: string;
  /** Finishing: the PKCE verifier kept with the pending flow. */
  codeVerifier?: string;
}

/**
 * The SDK's OAuthClientProvider for one console authorization, started in one request and finished in the
 * callback request. Client registration goes to the installation's store; the authorization URL, the PKCE
 * verifier and the tokens are captured here for the caller to keep (the caller encrypts them). It never
 * offers stored tokens, so `auth()` always starts a fresh authorization instead of refreshing.
 */
export class FlowOAuthProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  receivedTokens: OAuthTokens | undefined;
  private verifier: string | undefined;

  constructor(private readonly options: FlowProviderOptions) {
    this.verifier = options.codeVerifier;
  }

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.options.discovery;
  }

  get clientMetadata(): OAuthClientMetadata & { application_type: "web" } {
    return {
      ...clientMetadataOf(this.options.redirectUrl, this.options.clientName),
      // A server-side confidential client: the secret stays encrypted in our database.
      token_endpoint_auth_method: "client_secret_post",
    };
  }

  state(): string {
    if (!this.options.state) throw new Error("no state for this authorization");
    return this.options.state;
  }

  clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    return this.options.clients.clientInformation();
  }

  saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    return this.options.clients.saveClientInformation(info);
  }

  tokens(): undefined {
    return undefined;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.receivedTokens = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error("no PKCE code verifier for this authorization");
    return this.verifier;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "all" || scope === "client") await this.options.clients.forgetClientInformation();
  }
}

function clientMetadataOf(redirectUrl: string, clientName = "Switchboard") {
  return {
    // SEP-837: a web application (the console's callback), not a native one.
    application_type: "web" as const,
    client_name: clientName,
    redirect_uris: [redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
  };
}

/**
 * Our Client ID Metadata Document, served by the console at `url` (`clientMetadataUrlFor`): the same metadata a
 * dynamic registration sends, with the URL as the client id. A public client (PKCE, no secret): the document is
 * public, so there is nothing it could keep secret.
 */
export function clientMetadataDocument(input: { url: string; redirectUrl: string; appUrl: string }) {
  return {
    client_id: input.url,
    client_uri: input.appUrl,
    ...clientMetadataOf(input.redirectUrl),
    token_endpoint_auth_method: "none" as const,
  };
}
