import { randomBytes } from "node:crypto";
import type { DbTx } from "../client";
import { sealOidcConfig } from "../sso-config";

export type SsoProtocol = "oidc" | "saml";

/** A provider as the console shows it: never its client secret nor any key. */
export interface SsoProviderSummary {
  id: string;
  providerId: string;
  name: string;
  protocol: SsoProtocol;
  issuer: string;
  domains: string[];
  ssoOnly: boolean;
  clientId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

type Row = {
  id: string;
  providerId: string;
  name: string;
  issuer: string;
  domain: string;
  ssoOnly: boolean;
  oidcConfig: string | null;
  samlConfig: string | null;
  createdAt: Date;
  updatedAt: Date;
};

function clientIdOf(oidcConfig: string | null): string | null {
  if (!oidcConfig) return null;
  try {
    const parsed = JSON.parse(oidcConfig) as { clientId?: unknown };
    return typeof parsed.clientId === "string" ? parsed.clientId : null;
  } catch {
    return null;
  }
}

function summary(row: Row): SsoProviderSummary {
  return {
    id: row.id,
    providerId: row.providerId,
    name: row.name,
    protocol: row.samlConfig ? "saml" : "oidc",
    issuer: row.issuer,
    domains: row.domain.split(",").filter(Boolean),
    ssoOnly: row.ssoOnly,
    clientId: clientIdOf(row.oidcConfig),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export async function listSsoProviders(db: DbTx): Promise<SsoProviderSummary[]> {
  return (await db.ssoProvider.findMany({ orderBy: { createdAt: "asc" } })).map(summary);
}

export async function getSsoProvider(db: DbTx, { id }: { id: string }): Promise<SsoProviderSummary | null> {
  const row = await db.ssoProvider.findUnique({ where: { id } });
  return row ? summary(row) : null;
}

/** The stored configuration of one provider, its client secret still sealed (for the console's test and edits). */
export async function getSsoProviderConfig(db: DbTx, { id }: { id: string }) {
  return db.ssoProvider.findUnique({ where: { id } });
}

/** Providers that own one of these domains (to refuse a second owner of a domain). */
export async function ssoProvidersOwning(db: DbTx, { domains }: { domains: readonly string[] }) {
  const rows = await db.ssoProvider.findMany({ select: { id: true, name: true, domain: true } });
  return rows.filter((r) => r.domain.split(",").some((d) => domains.includes(d)));
}

/** Every provider's domains and whether they are SSO-only (small: a deployment has a handful of providers). */
export async function ssoDomainRules(db: DbTx) {
  const rows = await db.ssoProvider.findMany({ select: { providerId: true, name: true, domain: true, ssoOnly: true } });
  return rows.map((r) => ({ ...r, domains: r.domain.split(",").filter(Boolean) }));
}

/** The URLs Better Auth's plugin fetches or redirects to for every provider, for its trusted-origin checks. */
export async function ssoProviderEndpoints(db: DbTx): Promise<string[]> {
  const rows = await db.ssoProvider.findMany({ select: { issuer: true, oidcConfig: true, samlConfig: true } });
  const urls: string[] = [];
  for (const row of rows) {
    urls.push(row.issuer);
    for (const json of [row.oidcConfig, row.samlConfig]) {
      if (!json) continue;
      try {
        const c = JSON.parse(json) as Record<string, unknown>;
        for (const key of [
          "discoveryEndpoint",
          "authorizationEndpoint",
          "tokenEndpoint",
          "jwksEndpoint",
          "userInfoEndpoint",
          "entryPoint",
        ])
          if (typeof c[key] === "string") urls.push(c[key]);
      } catch {
        // a row that is not JSON names no endpoint
      }
    }
  }
  return urls;
}

export async function createSsoProvider(
  db: DbTx,
  data: {
    providerId: string;
    name: string;
    issuer: string;
    domains: readonly string[];
    ssoOnly: boolean;
    oidcConfig: string | null;
    samlConfig: string | null;
    userId: string;
  },
): Promise<SsoProviderSummary> {
  const row = await db.ssoProvider.create({
    data: {
      id: randomBytes(12).toString("base64url"),
      providerId: data.providerId,
      name: data.name,
      issuer: data.issuer,
      domain: data.domains.join(","),
      domainVerified: true,
      ssoOnly: data.ssoOnly,
      oidcConfig: sealOidcConfig(data.oidcConfig) ?? null,
      samlConfig: data.samlConfig,
      userId: data.userId,
    },
  });
  return summary(row);
}

export async function updateSsoProvider(
  db: DbTx,
  {
    id,
    ...data
  }: {
    id: string;
    name?: string;
    domains?: readonly string[];
    ssoOnly?: boolean;
    oidcConfig?: string;
    samlConfig?: string;
    issuer?: string;
  },
): Promise<SsoProviderSummary | null> {
  const found = await db.ssoProvider.findUnique({ where: { id }, select: { id: true } });
  if (!found) return null;
  const row = await db.ssoProvider.update({
    where: { id },
    data: {
      ...(data.name !== undefined ? { name: data.name } : {}),
      ...(data.domains !== undefined ? { domain: data.domains.join(",") } : {}),
      ...(data.ssoOnly !== undefined ? { ssoOnly: data.ssoOnly } : {}),
      ...(data.issuer !== undefined ? { issuer: data.issuer } : {}),
      ...(data.oidcConfig !== undefined ? { oidcConfig: sealOidcConfig(data.oidcConfig) } : {}),
      ...(data.samlConfig !== undefined ? { samlConfig: data.samlConfig } : {}),
    },
  });
  return summary(row);
}

export async function deleteSsoProvider(db: DbTx, { id }: { id: string }): Promise<SsoProviderSummary | null> {
  const row = await db.ssoProvider.findUnique({ where: { id } });
  if (!row) return null;
  await db.ssoProvider.delete({ where: { id } });
  return summary(row);
}

/**
 * An account the identity provider made (SSO just in time, or SCIM) has no password of its own: its address, and the
 * SSO providers it is linked to. Null when the account has a password, or does not exist.
 */
export async function passwordlessAccount(db: DbTx, userId: string) {
  const user = await db.user.findUnique({
    where: { id: userId },
    select: { email: true, accounts: { select: { providerId: true } } },
  });
  if (!user || user.accounts.some((a) => a.providerId === "credential")) return null;
  return { email: user.email, linkedProviderIds: user.accounts.map((a) => a.providerId) };
}
