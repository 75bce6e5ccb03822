import { extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ReauthorizationRequiredError } from "./errors";
import type { OAuthTokenSet } from "./store";

export interface OAuthFetchOptions {
  /** The member's current tokens (a store read, possibly cached); undefined sends no Authorization header. */
  tokens: () => Promise<OAuthTokenSet | undefined>;
  /**
   * The upstream answered 401 to `used`. Return the tokens to retry with once (refreshed by the worker, or
   * re-read because someone else refreshed meanwhile), or undefined to hand the 401 to the transport (which
   * ends as requires_reauth). May throw ReauthorizationRequiredError with a message for the member.
   */
  onUnauthorized: (used: OAuthTokenSet) => Promise<OAuthTokenSet | undefined>;
  /**
   * The upstream answered 403 `insufficient_scope` naming the scope it needs (a step-up): keep it, so that the
   * member's next authorization asks for it besides what was granted (`stepUpScope`).
   */
  onInsufficientScope?: (used: OAuthTokenSet, scope: string | undefined) => Promise<void>;
}

/**
 * Wraps a fetch so every upstream request carries the member's access token, and a 401 gets one retry with
 * the tokens `onUnauthorized` hands back. Request bodies of the MCP transports are strings, so the retry
 * resends the same request.
 */
export function oauthFetch(base: FetchLike, options: OAuthFetchOptions): FetchLike {
  const send = (input: string | URL, init: RequestInit | undefined, tokens: OAuthTokenSet | undefined) => {
    const headers = new Headers(init?.headers);
    if (tokens) headers.set("authorization", `${bearer(tokens.tokenType)} ${tokens.accessToken}`);
    return base(input, { ...init, headers });
  };
  return async (input, init) => {
    const used = await options.tokens();
    const response = await send(input, init, used);
    if (response.status === 403 && used) await stepUpNeeded(response, used, options);
    if (response.status !== 401 || !used) return response;
    const next = await options.onUnauthorized(used);
    if (!next || next.accessToken === used.accessToken) return response;
    await response.body?.cancel().catch(() => {});
    return send(input, init, next);
  };
}

/**
 * A 403 with `error="insufficient_scope"` (RFC 6750 3.1, MCP's step-up): the grant is too narrow and only the
 * member can widen it, so the request ends as requires_reauth with what to do; other 403s go to the transport.
 */
async function stepUpNeeded(response: Response, used: OAuthTokenSet, options: OAuthFetchOptions): Promise<void> {
  const { error, scope } = extractWWWAuthenticateParams(response);
  if (error !== "insufficient_scope") return;
  await response.body?.cancel().catch(() => {});
  await options.onInsufficientScope?.(used, scope);
  throw new ReauthorizationRequiredError(
    scope
      ? `The server asks for more access than was granted (${scope.slice(0, 200)}). Re-authenticate to grant it.`
      : "The server asks for more access than was granted. Re-authenticate to grant it.",
  );
}

/** Token types are case-insensitive; servers expect the canonical "Bearer". */
function bearer(tokenType: string): string {
  return tokenType.toLowerCase() === "bearer" ? "Bearer" : tokenType;
}
