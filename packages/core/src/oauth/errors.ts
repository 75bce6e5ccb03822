import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

/**
 * Only the member can fix this: their grant is gone (refresh token revoked or expired, client unknown). An
 * UnauthorizedError, so core classifyError maps it to requires_reauth; the message is shown in the console.
 */
export class ReauthorizationRequiredError extends UnauthorizedError {
  override readonly name = "ReauthorizationRequiredError";
}

/** The authorization server did not redirect us anywhere (the SDK returned without asking for a redirect). */
export class AuthorizationFlowError extends Error {
  override readonly name = "AuthorizationFlowError";
}

/** The upstream publishes no OAuth metadata (RFC 9728 protected resource, RFC 8414 / OpenID authorization server). */
export class OAuthNotOfferedError extends Error {
  override readonly name = "OAuthNotOfferedError";
  constructor() {
    super(
      "This server does not offer OAuth: it publishes no OAuth metadata. Check the URL, or use an API key setting instead.",
    );
  }
}

/** Discovery or registration did not finish within the start's time budget. */
export class OAuthStartTimeoutError extends Error {
  override readonly name = "OAuthStartTimeoutError";
  constructor(
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super(`The server's OAuth endpoints did not answer within ${Math.round(timeoutMs / 1000)} s.`, options);
  }
}
