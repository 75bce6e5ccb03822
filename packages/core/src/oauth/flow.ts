import { randomBytes } from "node:crypto";
import { auth, discoverOAuthServerInfo, extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { egressRefusalOf } from "../egress/errors";
import { AuthorizationFlowError, OAuthNotOfferedError, OAuthStartTimeoutError } from "./errors";
import { OAUTH_POLICY } from "./policy";
import { FlowOAuthProvider } from "./provider";
import type { OAuthClientStore, OAuthTokenSet } from "./store";

export interface AuthorizationTarget {
  /** The upstream MCP endpoint (the resource). */
  serverUrl: string;
  /** Headers the upstream needs besides the token (launch headers), sent with the challenge probe. */
  headers?: Record<string, string>;
  clients: OAuthClientStore;
  redirectUrl: string;
  clientName?: string;
  fetch?: FetchLike;
  /** Time budget of the whole start (OAUTH_POLICY.startTimeoutMs by default). */
  timeoutMs?: number;
}

export interface StartedAuthorization {
  /** Where the member's browser goes next. */
  authorizationUrl: string;
  state: string;
  /** PKCE S256 verifier: keep it server-side (encrypted) until the callback. */
  codeVerifier: string;
}

interface Challenge {
  resourceMetadataUrl?: URL;
  scope?: string;
}

/**
 * Asks the upstream without a token: a 401 names its protected-resource metadata and the scope it wants
 * (RFC 9728 WWW-Authenticate). Anything else leaves discovery to the well-known URLs.
 */
async function probeChallenge(target: AuthorizationTarget, opts: { rethrow?: boolean } = {}): Promise<Challenge> {
  try {
    const response = await (target.fetch ?? fetch)(target.serverUrl, {
      method: "POST",
      headers: { ...target.headers, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: LATEST_PROTOCOL_VERSION,
          capabilities: {},
          clientInfo: { name: "switchboard-oauth-probe", version: "0.1.0" },
        },
      }),
      signal: AbortSignal.timeout(10_000),
    });
    await response.body?.cancel().catch(() => {});
    if (response.status !== 401 && response.status !== 403) return {};
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    return { resourceMetadataUrl, scope };
  } catch (err) {
    // Starting: a server that cannot be reached is not one "without OAuth"; say what happened instead.
    if (opts.rethrow) throw err;
    return {};
  }
}

const newState = () => randomBytes(32).toString("base64url");

/**
 * Starts an authorization for one member with the SDK's `auth()`: protected-resource metadata (RFC 9728),
 * authorization-server metadata (RFC 8414 / OpenID discovery), the installation's client or a dynamic
 * registration (RFC 7591), PKCE S256, the resource indicator (RFC 8707) and the scope from the challenge or
 * the metadata. Returns the URL to send the browser to, with the state and verifier to keep.
 */
export async function startAuthorization(input: AuthorizationTarget): Promise<StartedAuthorization> {
  const timeoutMs = input.timeoutMs ?? OAUTH_POLICY.startTimeoutMs;
  const deadline = AbortSignal.timeout(timeoutMs);
  const target = { ...input, fetch: boundedFetch(input.fetch ?? fetch, deadline) };
  try {
    return await startWithin(target);
  } catch (err) {
    if (deadline.aborted) throw new OAuthStartTimeoutError(timeoutMs, { cause: err });
    throw err;
  }
}

/**
 * Every request of a start carries the start's deadline and its own timeout: an upstream that holds a request
 * open (a registration endpoint that never answers) ends the start with a timeout instead of a pending button.
 */
function boundedFetch(base: FetchLike, deadline: AbortSignal): FetchLike {
  return (url, init) => {
    const signals = [deadline, AbortSignal.timeout(OAUTH_POLICY.requestTimeoutMs)];
    if (init?.signal) signals.push(init.signal);
    return base(url, { ...init, signal: AbortSignal.any(signals) });
  };
}

async function startWithin(target: AuthorizationTarget): Promise<StartedAuthorization> {
  const challenge = await probeChallenge(target, { rethrow: true });
  // Discovery first, on its own: no metadata at all means the server does not do OAuth, which the SDK would
  // otherwise paper over with guessed endpoints (/authorize, /register) that a plain MCP server never answers.
  // The SDK swallows some fetch failures while it discovers (it retries and moves on): keep a refusal by the
  // egress rules, which is the real answer when the metadata names an address we must not reach.
  let refused: unknown;
  const watched: FetchLike = (url, init) =>
    (target.fetch ?? fetch)(url, init).catch((err: unknown) => {
      if (egressRefusalOf(err)) refused ??= err;
      throw err;
    });
  const info = await discoverOAuthServerInfo(target.serverUrl, {
    resourceMetadataUrl: challenge.resourceMetadataUrl,
    fetchFn: watched,
  }).catch((err: unknown) => {
    if ((err as { name?: string })?.name === "AbortError" || (err as { name?: string })?.name === "TimeoutError")
      throw err;
    return undefined;
  });
  if (refused) throw refused;
  if (!info?.authorizationServerMetadata) throw new OAuthNotOfferedError();
  const state = newState();
  // Two members registering at once: the store keeps the first registration, so the second flow is started
  // again with the client that was actually stored (its code would otherwise belong to a forgotten client).
  for (let attempt = 0; attempt < 2; attempt++) {
    const provider = new FlowOAuthProvider({
      clients: target.clients,
      redirectUrl: target.redirectUrl,
      clientName: target.clientName,
      state,
    });
    const result = await auth(provider, { serverUrl: target.serverUrl, fetchFn: target.fetch, ...challenge });
    if (result !== "REDIRECT" || !provider.authorizationUrl)
      throw new AuthorizationFlowError("The authorization server did not ask for a redirect");
    const used = provider.authorizationUrl.searchParams.get("client_id");
    const stored = await target.clients.clientInformation();
    if (stored?.client_id === used || attempt === 1) {
      return { authorizationUrl: provider.authorizationUrl.href, state, codeVerifier: provider.codeVerifier() };
    }
  }
  throw new AuthorizationFlowError("unreachable");
}

/** Our stored shape of the SDK's token response; `expires_in` is turned into a date at `now`. */
export function tokenSetFrom(
  tokens: OAuthTokens,
  now: Date,
  previous?: Pick<OAuthTokenSet, "refreshToken">,
): OAuthTokenSet {
  return {
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token ?? previous?.refreshToken,
    tokenType: tokens.token_type || "Bearer",
    scope: tokens.scope,
    expiresAt: tokens.expires_in !== undefined ? new Date(now.getTime() + tokens.expires_in * 1000) : undefined,
    obtainedAt: now,
    issuer: tokens.issuer,
  };
}

/**
 * Finishes an authorization in the callback: exchanges the code with the kept PKCE verifier (and the same
 * redirect URI and resource) through the SDK's `auth()`, and returns the tokens for the caller to store.
 */
export async function finishAuthorization(
  target: AuthorizationTarget & { code: string; codeVerifier: string; now?: () => Date },
): Promise<OAuthTokenSet> {
  const challenge = await probeChallenge(target);
  const provider = new FlowOAuthProvider({
    clients: target.clients,
    redirectUrl: target.redirectUrl,
    clientName: target.clientName,
    codeVerifier: target.codeVerifier,
  });
  const result = await auth(provider, {
    serverUrl: target.serverUrl,
    authorizationCode: target.code,
    fetchFn: target.fetch,
    ...challenge,
  });
  if (result !== "AUTHORIZED" || !provider.receivedTokens)
    throw new AuthorizationFlowError("The authorization server issued no tokens");
  return tokenSetFrom(provider.receivedTokens, (target.now ?? (() => new Date()))());
}
