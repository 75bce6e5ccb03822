import { z } from "zod";

/** The enterprise-idp router's inputs and answers: issuers trusted for ID-JAG, as owners enter and see them. */

const httpUrl = (what: string) =>
  z
    .url({ protocol: /^https?$/, error: `Enter the ${what} as an http(s) URL.` })
    .max(2048)
    .trim();

export const issuerInput = z.object({
  name: z.string().trim().min(1, "Name the identity provider.").max(80),
  issuer: httpUrl("issuer URL"),
  jwksUrl: httpUrl("JWKS URL"),
  memberClaim: z.enum(["sub", "email"]),
  /** The provider id of the accounts `sub` is matched to; empty: the issuer URL. */
  accountProviderId: z.string().trim().max(200).nullable().default(null),
  /** For `email`: the domains the provider owns, comma- or space-separated (core's parseSsoDomains checks them). */
  emailDomains: z.string().max(2_000).default(""),
});

export const issuerId = z.string().min(1).max(64);

export const issuerOutput = z.object({
  id: z.string(),
  name: z.string(),
  issuer: z.string(),
  jwksUrl: z.string(),
  memberClaim: z.enum(["sub", "email"]),
  accountProviderId: z.string().nullable(),
  emailDomains: z.array(z.string()),
  enabled: z.boolean(),
  createdAt: z.date(),
  updatedAt: z.date(),
});

export const updateIssuerInput = issuerInput.extend({ issuerId });
export const onIssuer = z.object({ issuerId });
export const setEnabledInput = z.object({ issuerId, enabled: z.boolean() });
export const issuerList = z.array(issuerOutput);
export const removedIssuer = z.object({ id: z.string() });
export const jwksTest = z.object({
  ok: z.boolean(),
  keys: z.number(),
  message: z.string(),
  detail: z.string().nullable(),
});
