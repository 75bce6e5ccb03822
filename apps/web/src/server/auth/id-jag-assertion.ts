import { createRemoteJWKSet, customFetch, errors as joseErrors } from "jose";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { findUnsafeText } from "../http/unsafe-text";

/**
 * What the ID-JAG grant (id-jag.ts) checks an assertion with: its constants, the refusal it answers with (an OAuth
 * error and one sentence), which claims may be recorded, the identity providers' key sets and why jose refused.
 */

export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
export const ID_JAG_TYP = "oauth-id-jag+jwt";
/** Clock skew tolerated on exp and iat. */
export const SKEW_SECONDS = 30;
/** An assertion older than this (by iat) is refused whatever its exp says: ID-JAGs are minutes-long grants. */
export const MAX_ASSERTION_AGE_SECONDS = 3600;

export type OAuthError =
  | "invalid_request"
  | "invalid_grant"
  | "invalid_client"
  | "invalid_target"
  | "unauthorized_client"
  | "unsupported_grant_type";

export class Refusal extends Error {
  constructor(
    readonly error: OAuthError,
    readonly description: string,
    readonly reason: string,
  ) {
    super(description);
  }
}

export const refuse = (error: OAuthError, reason: string, description: string): never => {
  throw new Refusal(error, description, reason);
};

/** A claim that may be looked up and recorded: a bounded string of printable, well-formed text (PostgreSQL refuses NUL). */
export function printable(value: unknown, max = 2048): value is string {
  return (
    typeof value === "string" &&
    value.length > 0 &&
    value.length <= max &&
    findUnsafeText(value) === null &&
    !Array.from(value).some((c) => c < " " || c === "\u007f")
  );
}

/** Remote key sets by JWKS URL (jose caches the keys and refetches on an unknown kid, at most every 30 s). */
const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

export function keySetFor(jwksUrl: string, egressFetch: FetchLike) {
  let set = keySets.get(jwksUrl);
  if (!set) {
    set = createRemoteJWKSet(new URL(jwksUrl), {
      timeoutDuration: 5_000,
      cacheMaxAge: 10 * 60_000,
      [customFetch]: (url: string, init: RequestInit) => egressFetch(url, { ...init, redirect: "error" }),
    });
    if (keySets.size > 100) keySets.clear();
    keySets.set(jwksUrl, set);
  }
  return set;
}

/** Fetches an identity provider's JWKS and answers how many signing keys it publishes (the console's test). */
export async function fetchJwksKeyCount(jwksUrl: string, egressFetch: FetchLike): Promise<number> {
  const response = await egressFetch(jwksUrl, {
    redirect: "error",
    headers: { accept: "application/json" },
    signal: AbortSignal.timeout(5_000),
  });
  if (!response.ok) throw new Error(`The JWKS URL answered HTTP ${response.status}.`);
  const text = await response.text();
  if (text.length > 512 * 1024) throw new Error("The JWKS document is larger than 512 KiB.");
  const body = JSON.parse(text) as { keys?: unknown };
  if (!Array.isArray(body.keys)) throw new Error("The document has no keys array: it is not a JWKS.");
  return body.keys.length;
}

/** Why jose refused an assertion, as an OAuth error and one sentence. */
export function verificationRefusal(err: unknown): Refusal {
  if (err instanceof joseErrors.JWTExpired)
    return new Refusal("invalid_grant", "The assertion has expired.", "expired");
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === "aud")
      return new Refusal(
        "invalid_grant",
        "The assertion is for another authorization server (its aud is not this Switchboard's issuer).",
        "wrong_audience",
      );
    if (err.claim === "typ")
      return new Refusal("invalid_grant", `The assertion's typ must be ${ID_JAG_TYP}.`, "wrong_type");
    if (err.claim === "iat")
      return new Refusal("invalid_grant", "The assertion was issued too long ago, or in the future.", "iat");
    return new Refusal(
      "invalid_grant",
      `The assertion's ${err.claim} claim is missing or invalid.`,
      `claim_${err.claim}`,
    );
  }
  if (
    err instanceof joseErrors.JWKSTimeout ||
    err instanceof joseErrors.JWKSInvalid ||
    !(err instanceof joseErrors.JOSEError)
  )
    return new Refusal(
      "invalid_grant",
      "The identity provider's signing keys could not be fetched; try again later.",
      "jwks_unavailable",
    );
  return new Refusal(
    "invalid_grant",
    "The assertion's signature does not verify against the identity provider's keys.",
    "bad_signature",
  );
}
