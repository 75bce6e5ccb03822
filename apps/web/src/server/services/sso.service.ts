import "server-only";
import { parseSsoDomains } from "@switchboard/core/sso";
import type { Db } from "@switchboard/db/client";
import {
  createSsoProvider,
  deleteSsoProvider,
  getSsoProvider,
  getSsoProviderConfig,
  listSsoProviders,
  ssoProvidersOwning,
  updateSsoProvider,
  type SsoProviderSummary,
} from "@switchboard/db/queries/sso";
import { env } from "@switchboard/runtime/env";
import { forgetSsoOrigins } from "../auth/sso-origins";
import { AppError } from "../errors";
import type { UserActor } from "./actor";
import { certificateProblem, discoverOidc, fetchDocument, pem, readIdpMetadata, type SamlIdp } from "./sso-metadata";

/**
 * Single sign-on providers of the deployment (deployment owners only): add one (OIDC from its issuer's discovery
 * document, SAML from the IdP's metadata or its URL and certificate), test it, say which email domains it owns
 * and whether it is the only way in for them, remove it. Better Auth's SSO plugin reads the rows (auth/sso.ts).
 */

/** The SP entity ID (the audience the IdP must address) and the URLs the IdP administrator registers. */
export function serviceProviderUrls(providerId: string) {
  const base = `${env().APP_URL.replace(/\/+$/, "")}/api/auth`;
  return {
    oidcRedirectUri: `${base}/sso/callback/${providerId}`,
    samlAcsUrl: `${base}/sso/saml2/sp/acs/${providerId}`,
    samlEntityId: `${base}/sso/saml2/sp/metadata?providerId=${encodeURIComponent(providerId)}`,
    samlMetadataUrl: `${base}/sso/saml2/sp/metadata?providerId=${encodeURIComponent(providerId)}`,
  };
}

function withUrls(p: SsoProviderSummary) {
  return { ...p, ...serviceProviderUrls(p.providerId) };
}

export type AddOidcProvider = {
  protocol: "oidc";
  name: string;
  providerId: string;
  domains: string;
  ssoOnly: boolean;
  issuer: string;
  oidcClientId: string;
  oidcClientSecret: string;
};

export type AddSamlProvider = {
  protocol: "saml";
  name: string;
  providerId: string;
  domains: string;
  ssoOnly: boolean;
  /** The IdP's metadata XML, pasted; or its URL; or its entity ID, SSO URL and certificate. */
  metadataXml?: string | undefined;
  metadataUrl?: string | undefined;
  entityId?: string | undefined;
  ssoUrl?: string | undefined;
  certificate?: string | undefined;
};

async function domainsFor(db: Db, input: string, exceptId?: string): Promise<string[]> {
  const parsed = parseSsoDomains(input);
  if ("problem" in parsed) throw new AppError("INVALID_INPUT", parsed.problem);
  const owners = (await ssoProvidersOwning(db, { domains: parsed.domains })).filter((o) => o.id !== exceptId);
  if (owners.length > 0) {
    const taken = parsed.domains.filter((d) => owners.some((o) => o.domain.split(",").includes(d)));
    throw new AppError(
      "CONFLICT",
      `${taken.join(", ")} already signs in with ${owners[0]!.name}; a domain has one provider.`,
    );
  }
  return parsed.domains;
}

async function samlConfigFor(input: AddSamlProvider, providerId: string): Promise<{ json: string; idp: SamlIdp }> {
  let idp: SamlIdp;
  let metadata: string | undefined;
  if (input.metadataXml || input.metadataUrl) {
    if (input.metadataXml) metadata = input.metadataXml;
    else {
      const fetched = await fetchDocument(input.metadataUrl!);
      if (!fetched.ok)
        throw new AppError("INVALID_INPUT", `Switchboard could not read the IdP metadata: ${fetched.detail}.`);
      metadata = fetched.text;
    }
    const read = readIdpMetadata(metadata);
    if (!read.ok) throw new AppError("INVALID_INPUT", `That IdP metadata cannot be used: ${read.detail}.`);
    idp = read.idp;
  } else {
    if (!input.entityId || !input.ssoUrl || !input.certificate)
      throw new AppError("INVALID_INPUT", "Give the IdP's metadata, or its entity ID, sign-in URL and certificate.");
    idp = { entityId: input.entityId, ssoUrl: input.ssoUrl, certificates: [pem(input.certificate)] };
  }
  const problem = certificateProblem(idp.certificates[0]!);
  if (problem) throw new AppError("INVALID_INPUT", `That IdP cannot sign assertions Switchboard accepts: ${problem}.`);
  const sp = serviceProviderUrls(providerId);
  const json = JSON.stringify({
    issuer: sp.samlEntityId,
    audience: sp.samlEntityId,
    entryPoint: idp.ssoUrl,
    cert: idp.certificates.length === 1 ? idp.certificates[0] : idp.certificates,
    callbackUrl: "/",
    idpMetadata: metadata
      ? { metadata }
      : {
          entityID: idp.entityId,
          cert: idp.certificates[0],
          singleSignOnService: [
            { Binding: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect", Location: idp.ssoUrl },
          ],
        },
    wantAssertionsSigned: true,
    identifierFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
    mapping: { email: "email", name: "displayName", extraFields: { groups: "groups", memberOf: "memberOf" } },
  });
  return { json, idp };
}

export async function listProviders({ db }: { db: Db }) {
  return (await listSsoProviders(db)).map(withUrls);
}

export async function addProvider({
  db,
  actor,
  input,
}: {
  db: Db;
  actor: UserActor;
  input: AddOidcProvider | AddSamlProvider;
}) {
  const domains = await domainsFor(db, input.domains);
  if (await db.ssoProvider.findUnique({ where: { providerId: input.providerId }, select: { id: true } }))
    throw new AppError("CONFLICT", `A provider with the id ${input.providerId} exists; choose another id.`);
  let created: SsoProviderSummary;
  if (input.protocol === "oidc") {
    const issuer = input.issuer.replace(/\/+$/, "");
    const discovered = await discoverOidc(issuer);
    if (!discovered.ok)
      throw new AppError(
        "INVALID_INPUT",
        `Switchboard could not use the issuer's discovery document (${discovered.detail.slice(0, 200)}).`,
      );
    const d = discovered.config;
    const scopes = ["openid", "email", "profile", ...(d.scopesSupported.includes("groups") ? ["groups"] : [])];
    created = await createSsoProvider(db, {
      providerId: input.providerId,
      name: input.name,
      issuer: d.issuer,
      domains,
      ssoOnly: input.ssoOnly,
      userId: actor.userId,
      samlConfig: null,
      oidcConfig: JSON.stringify({
        issuer: d.issuer,
        clientId: input.oidcClientId,
        clientSecret: input.oidcClientSecret,
        authorizationEndpoint: d.authorizationEndpoint,
        tokenEndpoint: d.tokenEndpoint,
        jwksEndpoint: d.jwksEndpoint,
        userInfoEndpoint: d.userInfoEndpoint,
        discoveryEndpoint: d.discoveryEndpoint,
        tokenEndpointAuthentication: d.tokenEndpointAuthentication,
        pkce: true,
        scopes,
        mapping: { extraFields: { groups: "groups" } },
      }),
    });
  } else {
    const saml = await samlConfigFor(input, input.providerId);
    created = await createSsoProvider(db, {
      providerId: input.providerId,
      name: input.name,
      issuer: serviceProviderUrls(input.providerId).samlEntityId,
      domains,
      ssoOnly: input.ssoOnly,
      userId: actor.userId,
      oidcConfig: null,
      samlConfig: saml.json,
    });
  }
  forgetSsoOrigins();
  return withUrls(created);
}

export async function updateProvider({
  db,
  input,
}: {
  db: Db;
  input: {
    id: string;
    name?: string;
    domains?: string;
    ssoOnly?: boolean;
    oidcClientId?: string;
    oidcClientSecret?: string;
  };
}) {
  const row = await getSsoProviderConfig(db, { id: input.id });
  if (!row) throw new AppError("NOT_FOUND", "That SSO provider does not exist (any more).");
  const domains = input.domains !== undefined ? await domainsFor(db, input.domains, input.id) : undefined;
  let oidcConfig: string | undefined;
  if ((input.oidcClientId || input.oidcClientSecret) && row.oidcConfig) {
    const current = JSON.parse(row.oidcConfig) as Record<string, unknown>;
    oidcConfig = JSON.stringify({
      ...current,
      ...(input.oidcClientId ? { clientId: input.oidcClientId } : {}),
      ...(input.oidcClientSecret ? { clientSecret: input.oidcClientSecret } : {}),
    });
  }
  const updated = await updateSsoProvider(db, {
    id: input.id,
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(domains ? { domains } : {}),
    ...(input.ssoOnly !== undefined ? { ssoOnly: input.ssoOnly } : {}),
    ...(oidcConfig ? { oidcConfig } : {}),
  });
  forgetSsoOrigins();
  return withUrls(updated!);
}

export async function removeProvider({ db, id }: { db: Db; id: string }) {
  const removed = await deleteSsoProvider(db, { id });
  if (!removed) throw new AppError("NOT_FOUND", "That SSO provider does not exist (any more).");
  forgetSsoOrigins();
  return { id: removed.id };
}

/**
 * The console's "Test": fetches what a sign-in would use (OIDC: the discovery document and the signing keys; SAML:
 * the certificate's dates and whether the IdP's sign-in URL answers) and says in one sentence whether it is usable.
 */
export async function testProvider({ db, id }: { db: Db; id: string }) {
  const provider = await getSsoProvider(db, { id });
  const row = await getSsoProviderConfig(db, { id });
  if (!provider || !row) throw new AppError("NOT_FOUND", "That SSO provider does not exist (any more).");
  if (provider.protocol === "oidc") {
    const discovered = await discoverOidc(provider.issuer);
    if (!discovered.ok)
      return {
        usable: false,
        sentence: `Not usable: Switchboard could not read ${provider.name}'s discovery document.`,
        detail: discovered.detail,
      };
    const keys = await fetchDocument(discovered.config.jwksEndpoint);
    let count = 0;
    if (keys.ok) {
      try {
        const parsed = JSON.parse(keys.text) as { keys?: unknown };
        count = Array.isArray(parsed.keys) ? parsed.keys.length : 0;
      } catch {
        count = 0;
      }
    }
    if (count === 0)
      return {
        usable: false,
        sentence: `Not usable: ${provider.name} publishes no signing keys, so Switchboard cannot check its ID tokens.`,
        detail: keys.ok ? `${discovered.config.jwksEndpoint} lists no keys` : keys.detail,
      };
    return {
      usable: true,
      sentence: `Usable: ${provider.name} answers at its issuer with ${count} signing key${count === 1 ? "" : "s"}; sign in once to check the client id and secret.`,
      detail: `issuer ${discovered.config.issuer}; authorization ${discovered.config.authorizationEndpoint}; token ${discovered.config.tokenEndpoint}`,
    };
  }
  const config = JSON.parse(row.samlConfig ?? "{}") as {
    entryPoint?: string;
    cert?: string | string[];
    idpMetadata?: { metadata?: string };
  };
  const cert = Array.isArray(config.cert) ? config.cert[0] : config.cert;
  const problem = cert ? certificateProblem(cert) : "no IdP certificate is stored";
  if (problem)
    return {
      usable: false,
      sentence: `Not usable: ${provider.name}'s signing certificate cannot be trusted now.`,
      detail: problem,
    };
  const entry = config.entryPoint ? await fetchDocument(config.entryPoint) : null;
  // A sign-in URL answers a request without a SAMLRequest with an error page: any answer under 500 means it is up.
  const reachable = entry === null || entry.ok || /HTTP [1-4]\d\d/.test(entry.detail);
  if (!reachable)
    return {
      usable: false,
      sentence: `Not usable: Switchboard could not reach ${provider.name}'s sign-in URL.`,
      detail: entry && !entry.ok ? entry.detail : "",
    };
  return {
    usable: true,
    sentence: `Usable: ${provider.name}'s certificate is valid and its sign-in URL answers; sign in once to check the audience and attributes.`,
    detail: `sign-in URL ${config.entryPoint ?? "(from metadata)"}`,
  };
}
