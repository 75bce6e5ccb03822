import { z } from "zod";

const text = (max: number) => z.string().trim().min(1).max(max);
const providerId = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9-]{1,39}$/, "Use 2 to 40 lower-case letters, digits and dashes for the provider id.");
const httpsOrHttpUrl = z.url({ protocol: /^https?$/, error: "Enter an http(s) URL." }).max(2_000);

const common = {
  name: text(80),
  providerId,
  /** Comma- or space-separated email domains (core's parseSsoDomains checks them). */
  domains: text(2_000),
  ssoOnly: z.boolean().default(false),
};

// The OIDC client's fields are not called `clientId`: in the audit trail that key names an MCP OAuth client.
export const addSsoProviderInput = z.discriminatedUnion("protocol", [
  z.object({
    protocol: z.literal("oidc"),
    ...common,
    issuer: httpsOrHttpUrl,
    oidcClientId: text(500),
    oidcClientSecret: text(2_000),
  }),
  z.object({
    protocol: z.literal("saml"),
    ...common,
    metadataXml: z.string().max(200_000).optional(),
    metadataUrl: httpsOrHttpUrl.optional(),
    entityId: z.string().trim().max(1_000).optional(),
    ssoUrl: httpsOrHttpUrl.optional(),
    certificate: z.string().max(20_000).optional(),
  }),
]);

export const updateSsoProviderInput = z.object({
  id: z.string().min(1).max(64),
  name: text(80).optional(),
  domains: text(2_000).optional(),
  ssoOnly: z.boolean().optional(),
  oidcClientId: text(500).optional(),
  /** Write-only: left out, the stored secret stays. */
  oidcClientSecret: text(2_000).optional(),
});

export const ssoProviderOutput = z.object({
  id: z.string(),
  providerId: z.string(),
  name: z.string(),
  protocol: z.enum(["oidc", "saml"]),
  issuer: z.string(),
  domains: z.array(z.string()),
  ssoOnly: z.boolean(),
  clientId: z.string().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
  oidcRedirectUri: z.string(),
  samlAcsUrl: z.string(),
  samlEntityId: z.string(),
  samlMetadataUrl: z.string(),
});

export const ssoTestOutput = z.object({ usable: z.boolean(), sentence: z.string(), detail: z.string() });

export const byId = z.object({ id: z.string().min(1).max(64) });
export const ssoProviders = z.array(ssoProviderOutput);
export const removedProvider = z.object({ id: z.string() });
