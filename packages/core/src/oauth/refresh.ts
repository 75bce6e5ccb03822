import {
  discoverOAuthServerInfo,
  refreshAuthorization,
  selectResourceURL,
} from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { tokenSetFrom } from "./flow";
import { classifyRefreshFailure, type RefreshFailure } from "./policy";
import { FlowOAuthProvider } from "./provider";
import type { OAuthClientStore, OAuthTokenSet } from "./store";

export interface RefreshInput {
  serverUrl: string;
  clients: OAuthClientStore;
  tokens: OAuthTokenSet;
  fetch?: FetchLike;
  now?: () => Date;
}

export type RefreshResult = { ok: true; tokens: OAuthTokenSet } | ({ ok: false } & RefreshFailure);

const sameServer = (a: string, b: string) => {
  try {
    return new URL(a).href.replace(/\/$/, "") === new URL(b).href.replace(/\/$/, "");
  } catch {
    return a === b;
  }
};

/**
 * Exchanges the refresh token for a new access token with the SDK's helpers (discovery, then
 * `refreshAuthorization` with the resource indicator). Unlike the SDK's `auth()`, which treats every failed
 * refresh as "go and authorize interactively", this returns which failures need the member (`reauth`) and
 * which only need time (`retry`), so an authorization server outage does not log every member out.
 */
export async function refreshAccessToken(input: RefreshInput): Promise<RefreshResult> {
  const { tokens } = input;
  if (!tokens.refreshToken)
    return {
      ok: false,
      kind: "reauth",
      message: "The authorization has no refresh token; re-authenticate to reconnect.",
    };
  try {
    const info = await discoverOAuthServerInfo(input.serverUrl, { fetchFn: input.fetch });
    if (tokens.issuer && !sameServer(tokens.issuer, info.authorizationServerUrl)) {
      return {
        ok: false,
        kind: "reauth",
        message: "The server moved to another authorization server; re-authenticate to reconnect.",
      };
    }
    const clientInformation = await input.clients.clientInformation();
    if (!clientInformation)
      return {
        ok: false,
        kind: "reauth",
        message: "The OAuth client of this server is gone; re-authenticate to reconnect.",
      };
    // selectResourceURL only needs the provider for its optional validateResourceURL, which ours leaves out.
    const provider = new FlowOAuthProvider({ clients: input.clients, redirectUrl: "http://unused.invalid/" });
    const selected = await selectResourceURL(input.serverUrl, provider, info.resourceMetadata);
    const fresh = await refreshAuthorization(info.authorizationServerUrl, {
      metadata: info.authorizationServerMetadata,
      clientInformation,
      refreshToken: tokens.refreshToken,
      resource: selected && info.resourceMetadata ? info.resourceMetadata.resource : selected,
      fetchFn: input.fetch,
    });
    const now = (input.now ?? (() => new Date()))();
    return { ok: true, tokens: { ...tokenSetFrom(fresh, now, tokens), issuer: info.authorizationServerUrl } };
  } catch (error) {
    return { ok: false, ...classifyRefreshFailure(error) };
  }
}
