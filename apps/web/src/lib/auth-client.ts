"use client";

import { oauthProviderClient } from "@better-auth/oauth-provider/client";
import { ssoClient } from "@better-auth/sso/client";
import { createAuthClient } from "better-auth/react";

/**
 * Sign-up, sign-in, password reset and change, email confirmation. Teams, members and invitations go through
 * tRPC only: Better Auth's organization endpoints are closed over HTTP (server/auth/guard-plugin.ts).
 */
export const authClient = createAuthClient({
  // On pages an MCP client's sign-in passes through (sign-in, consent), sends the provider's signed authorization
  // request back with each POST, so signing in continues to the consent page and the decision reaches the client.
  // "Sign in with SSO" (server/auth/sso.ts) starts at the identity provider of the address's domain.
  plugins: [oauthProviderClient(), ssoClient()],
});
