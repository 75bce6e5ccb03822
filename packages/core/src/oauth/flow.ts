import { randomBytes } from "node:crypto";
import { auth, discoverOAuthServerInfo, extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
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
  /**
   * Our Client ID Metadata Document (an https URL, `clientMetadataUrlFor`): the client id at authorization servers
   * that accept one; others get a dynamic registration.
   */
  clientMetadataUrl?: string;
  /** More scope to ask for besides the challenge's (a step-up: `stepUpScope(granted, needed)`). */
  scope?: string;
}

export interface StartedAuthorization {
  /** Where the member's browser goes next. */
  authorizationUrl: string;
  state: string;
  /** PKCE S256 verifier: keep it server-side (encrypted) until the callback. */
  codeVerifier: string;
  /** The authorization server's issuer identifier, as its metadata states it. */
  issuer: string;
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
  const discovery = await discover(target.serverUrl, challenge, watched).catch((err: unknown) => {
    if ((err as { name?: string })?.name === "AbortError" || (err as { name?: string })?.name === "TimeoutError")
      throw err;
    return undefined;
  });
  if (refused) throw refused;
  if (!discovery?.authorizationServerMetadata) throw new OAuthNotOfferedError();
  const issuer = checkedIssuer(discovery);
  const state = newState();
  // Two members registering at once: the store keeps the first registration, so the second flow is started
  // again with the client that was actually stored (its code would otherwise belong to a forgotten client).
  for (let attempt = 0; attempt < 2; attempt++) {
    const provider = new FlowOAuthProvider({
      clients: target.clients,
      redirectUrl: target.redirectUrl,
      clientName: target.clientName,
      clientMetadataUrl: target.clientMetadataUrl,
      discovery,
      state,
    });
    const result = await auth(provider, {
      serverUrl: target.serverUrl,
      fetchFn: target.fetch,
      ...challenge,
      // A step-up asks for the challenge's scope and more, never less.
      ...(target.scope ? { scope: stepUpScope(challenge.scope, target.scope) } : {}),
    });
    if (result !== "REDIRECT" || !provider.authorizationUrl)
      throw new AuthorizationFlowError("The authorization server did not ask for a redirect");
    const used = provider.authorizationUrl.searchParams.get("client_id");
    const stored = await target.clients.clientInformation();
    if (stored?.client_id === used || attempt === 1) {
      return { authorizationUrl: provider.authorizationUrl.href, state, codeVerifier: provider.codeVerifier(), issuer };
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
  target: AuthorizationTarget & {
    code: string;
    codeVerifier: string;
    /** The `iss` parameter of the authorization response (RFC 9207), null when it had none. */
    iss?: string | null;
    /**
     * The issuer `startAuthorization` returned, kept with the pending flow. The callback discovers the
     * authorization server again; if the resource now names another one, the code and verifier are not sent there.
     */
    startedIssuer?: string | null;
    now?: () => Date;
  },
): Promise<OAuthTokenSet> {
  const challenge = await probeChallenge(target);
  const discovery = await discover(target.serverUrl, challenge, target.fetch ?? fetch);
  if (!discovery.authorizationServerMetadata) throw new OAuthNotOfferedError();
  const issuer = checkedIssuer(discovery);
  if (target.startedIssuer && issuer !== target.startedIssuer)
    throw new AuthorizationFlowError(
      `The server names another authorization server (${issuer.slice(0, 200)}) than the one the authorization started with (${target.startedIssuer.slice(0, 200)})`,
    );
  checkResponseIssuer(issuer, discovery, target.iss ?? null);
  const provider = new FlowOAuthProvider({
    clients: target.clients,
    redirectUrl: target.redirectUrl,
    clientName: target.clientName,
    clientMetadataUrl: target.clientMetadataUrl,
    discovery,
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

async function discover(serverUrl: string, challenge: Challenge, fetchFn: FetchLike): Promise<OAuthDiscoveryState> {
  const info = await discoverOAuthServerInfo(serverUrl, {
    resourceMetadataUrl: challenge.resourceMetadataUrl,
    fetchFn,
  });
  return {
    authorizationServerUrl: info.authorizationServerUrl,
    resourceMetadataUrl: challenge.resourceMetadataUrl?.href,
    resourceMetadata: info.resourceMetadata,
    authorizationServerMetadata: info.authorizationServerMetadata,
  };
}

/**
 * RFC 8414 section 3.3: the metadata's `issuer` is the identifier its well-known URL was built from, or the
 * document is not the authorization server's and must not be used (a mix-up, or a document copied elsewhere).
 * Compared as written, but for the one trailing slash URL parsing adds to a bare origin.
 */
function checkedIssuer(discovery: OAuthDiscoveryState): string {
  const issuer = discovery.authorizationServerMetadata!.issuer;
  const expected = discovery.authorizationServerUrl;
  if (issuer !== expected && `${issuer}/` !== expected && issuer !== `${expected}/`)
    throw new AuthorizationFlowError(
      `The authorization server's metadata names another issuer (${issuer.slice(0, 200)}) than the one it was fetched for (${expected.slice(0, 200)})`,
    );
  return issuer;
}

/**
 * RFC 9207: an `iss` in the authorization response must be the issuer we started with, compared exactly (no
 * normalisation); a server that says it sends one and did not is refused too. Either way the code is not
 * exchanged: it may come from another authorization server (a mix-up attack).
 */
function checkResponseIssuer(issuer: string, discovery: OAuthDiscoveryState, iss: string | null): void {
  const metadata: Record<string, unknown> = discovery.authorizationServerMetadata!;
  const advertised = metadata.authorization_response_iss_parameter_supported === true;
  if (iss === null) {
    if (advertised)
      throw new AuthorizationFlowError("The authorization server sent no issuer (iss) with its answer, as it promised");
    return;
  }
  if (iss !== issuer)
    throw new AuthorizationFlowError(
      `The authorization answer came from another issuer (${iss.slice(0, 200)}) than the one asked (${issuer.slice(0, 200)})`,
    );
}

/**
 * The scope of a step-up (an upstream answered `insufficient_scope` with the scope it needs): what was granted
 * and what is asked for now, so the new grant does not lose what other calls need.
 */
export function stepUpScope(granted: string | undefined, challenged: string | undefined): string | undefined {
  const scopes = new Set([...(granted?.split(" ") ?? []), ...(challenged?.split(" ") ?? [])].filter(Boolean));
  return scopes.size > 0 ? [...scopes].join(" ") : undefined;
}

/** Our Client ID Metadata Document's URL on the console, or nothing where it cannot be one (not https). */
export function clientMetadataUrlFor(appUrl: string): string | undefined {
  const url = new URL(CLIENT_METADATA_PATH, appUrl);
  return url.protocol === "https:" ? url.href : undefined;
}

export const CLIENT_METADATA_PATH = "/api/oauth/client-metadata.json";
