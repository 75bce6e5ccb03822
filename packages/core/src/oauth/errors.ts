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
