import { z } from "zod";
import * as idps from "../../services/enterprise-idp.service";
import { createTRPCRouter, deploymentOwnerProcedure } from "../init";

const httpUrl = (what: string) =>
  z
    .url({ protocol: /^https?$/, error: `Enter the ${what} as an http(s) URL.` })
    .max(2048)
    .trim();

const issuerInput = z.object({
  name: z.string().trim().min(1, "Name the identity provider.").max(80),
  issuer: httpUrl("issuer URL"),
  jwksUrl: httpUrl("JWKS URL"),
  memberClaim: z.enum(["sub", "email"]),
  /** The provider id of the accounts `sub` is matched to; empty: the issuer URL. */
  accountProviderId: z.string().trim().max(200).nullable().default(null),
  /** For `email`: the domains the provider owns, comma- or space-separated (core's parseSsoDomains checks them). */
  emailDomains: z.string().max(2_000).default(""),
});

const issuerId = z.string().min(1).max(64);

const issuerOutput = z.object({
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

/**
 * Enterprise identity providers trusted for enterprise-managed authorization (ID-JAG) of MCP clients. Deployment
 * owners only; sign-in providers (SSO) are elsewhere.
 */
export const enterpriseIdpRouter = createTRPCRouter({
  list: deploymentOwnerProcedure
    .input(z.void())
    .output(z.array(issuerOutput))
    .query(({ ctx }) => idps.list({ db: ctx.db })),

  add: deploymentOwnerProcedure
    .input(issuerInput)
    .output(issuerOutput)
    .mutation(({ ctx, input }) => idps.add({ db: ctx.db, input })),

  update: deploymentOwnerProcedure
    .input(issuerInput.extend({ issuerId }))
    .output(issuerOutput)
    .mutation(({ ctx, input: { issuerId: id, ...input } }) => idps.update({ db: ctx.db, id, input })),

  setEnabled: deploymentOwnerProcedure
    .input(z.object({ issuerId, enabled: z.boolean() }))
    .output(issuerOutput)
    .mutation(({ ctx, input }) => idps.setEnabled({ db: ctx.db, id: input.issuerId, enabled: input.enabled })),

  remove: deploymentOwnerProcedure
    .input(z.object({ issuerId }))
    .output(z.object({ id: z.string() }))
    .mutation(({ ctx, input }) => idps.remove({ db: ctx.db, id: input.issuerId })),

  /** Fetches the provider's JWKS (changes nothing). */
  test: deploymentOwnerProcedure
    .input(z.object({ issuerId }))
    .output(z.object({ ok: z.boolean(), keys: z.number(), message: z.string(), detail: z.string().nullable() }))
    .mutation(({ ctx, input }) => idps.test({ db: ctx.db, id: input.issuerId })),
});
