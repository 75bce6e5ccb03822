import type { OAuthClientInformationMixed } from "@modelcontextprotocol/sdk/shared/auth.js";

/**
 * A member's tokens for one upstream, as the apps store them (encrypted) and hand them back. `obtainedAt` is
 * when the current access token arrived, so the refresh policy can reason about the token's lifetime.
 */
export interface OAuthTokenSet {
  accessToken: string;
  refreshToken?: string;
  tokenType: string;
  scope?: string;
  expiresAt?: Date;
  obtainedAt?: Date;
  /** The authorization server that issued them: a refresh token is only ever sent back there. */
  issuer?: string;
}

/**
 * Where the OAuth client of one installation lives. An admin's pre-registered client wins; otherwise the
 * result of dynamic client registration (RFC 7591) is kept, shared by every member of the installation.
 */
export interface OAuthClientStore {
  clientInformation(): Promise<OAuthClientInformationMixed | undefined>;
  /** Keeps a registration; a store may refuse to replace one another request stored first (it then wins). */
  saveClientInformation(info: OAuthClientInformationMixed): Promise<void>;
  /** The authorization server no longer knows the registered client: forget it (pre-registered clients stay). */
  forgetClientInformation(): Promise<void>;
}
