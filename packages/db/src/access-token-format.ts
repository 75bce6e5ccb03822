import { randomBytes } from "node:crypto";

/**
 * Personal access tokens for MCP clients: `sbp_` + 40 base62 characters (~238 bits). Only a SHA-256 hash is
 * stored; the first 10 characters are kept as a recognisable prefix.
 */
export const TOKEN_PREFIX = "sbp_";
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export function generateAccessToken(): string {
  let out = TOKEN_PREFIX;
  // 40 bytes -> 40 characters; the modulo bias of 256 % 62 is negligible for a bearer secret of this length.
  for (const b of randomBytes(40)) out += ALPHABET[b % 62];
  return out;
}

export function looksLikeAccessToken(value: string): boolean {
  return value.startsWith(TOKEN_PREFIX) && /^[0-9A-Za-z]{40}$/.test(value.slice(TOKEN_PREFIX.length));
}

export function accessTokenDisplayPrefix(token: string): string {
  return token.slice(0, 10);
}
