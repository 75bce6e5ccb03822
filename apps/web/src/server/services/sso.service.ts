import "server-only";
import { X509Certificate } from "node:crypto";
import { validateDiscoveryDocument } from "@better-auth/sso";
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
import { upstreamEgressFetch, urlRefusal } from "@switchboard/runtime/egress";
import { forgetSsoOrigins } from "../auth/sso";
import { AppError } from "../errors";
import type { UserActor } from "./actor";

/**
 * Single sign-on providers of the deployment (deployment owners only): add one (OIDC from its issuer's discovery
 * document, SAML from the IdP's metadata or its URL and certificate), test it, say which email domains it owns
 * and whether it is the only way in for them, remove it. Better Auth's SSO plugin reads the rows (auth/sso.ts).
 */

const FETCH_TIMEOUT_MS = 5_000;
const MAX_DOCUMENT_BYTES = 256 * 1024;

/** Discovery documents and metadata are fetched under the deployment's egress rules, never following a redirect. */
async function fetchDocument(url: string): Promise<{ ok: true; text: string } | { ok: false; detail: string }> {
  const refusal = urlRefusal(url);
  if (refusal) return { ok: false, detail: refusal };
  try {
    const res = await upstreamEgressFetch()(url, {
      redirect: "error",
      headers: { accept: "application/json, application/xml, text/xml" },
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
    if (!res.ok) return { ok: false, detail: `HTTP ${res.status} from ${url}` };
    const text = await res.text();
    if (text.length > MAX_DOCUMENT_BYTES) return { ok: false, detail: `the document at ${url} is over 256 KiB` };
    return { ok: true, text };
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return { ok: false, detail: `${url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`.slice(0, 300) };
  }
}

function discoveryUrlOf(issuer: string): string {
  return `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
}

type Discovered = {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksEndpoint: string;
  userInfoEndpoint?: string;
  discoveryEndpoint: string;
  tokenEndpointAuthentication: "client_secret_basic" | "client_secret_post";
  scopesSupported: string[];
};

/** The issuer's discovery document, checked as Better Auth checks it (the issuer matches, the endpoints are there). */
async function discoverOidc(issuer: string): Promise<{ ok: true; config: Discovered } | { ok: false; detail: string }> {
  const url = discoveryUrlOf(issuer);
  const fetched = await fetchDocument(url);
  if (!fetched.ok) return fetched;
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(fetched.text) as Record<string, unknown>;
  } catch {
    return { ok: false, detail: `${url} did not answer JSON` };
  }
  try {
    validateDiscoveryDocument(doc as never, issuer);
  } catch (err) {
    return { ok: false, detail: (err as Error).message.slice(0, 300) };
  }
  const methods = Array.isArray(doc.token_endpoint_auth_methods_supported)
    ? (doc.token_endpoint_auth_methods_supported as unknown[])
    : ["client_secret_basic"];
  return {
    ok: true,
    config: {
      issuer: String(doc.issuer),
      authorizationEndpoint: String(doc.authorization_endpoint),
      tokenEndpoint: String(doc.token_endpoint),
      jwksEndpoint: String(doc.jwks_uri),
      ...(typeof doc.userinfo_endpoint === "string" ? { userInfoEndpoint: doc.userinfo_endpoint } : {}),
      discoveryEndpoint: url,
      tokenEndpointAuthentication:
        methods.includes("client_secret_basic") || !methods.includes("client_secret_post")
          ? "client_secret_basic"
          : "client_secret_post",
      scopesSupported: Array.isArray(doc.scopes_supported)
        ? (doc.scopes_supported as unknown[]).filter((s): s is string => typeof s === "string")
        : [],
    },
  };
}

type SamlIdp = { entityId: string; ssoUrl: string; certificates: string[] };

function pem(body: string): string {
  const clean = body.replace(/-----(BEGIN|END) CERTIFICATE-----/g, "").replace(/\s+/g, "");
  return `-----BEGIN CERTIFICATE-----\n${clean.match(/.{1,64}/g)?.join("\n") ?? ""}\n-----END CERTIFICATE-----\n`;
}

/** What Switchboard needs from an IdP's metadata: its entity ID, its HTTP-Redirect or POST SSO URL, its certificates. */
function readIdpMetadata(xml: string): { ok: true; idp: SamlIdp } | { ok: false; detail: string } {
  if (!/IDPSSODescriptor/.test(xml)) return { ok: false, detail: "the metadata has no IDPSSODescriptor" };
  const entityId = /<(?:\w+:)?EntityDescriptor\b[^>]*\bentityID="([^"]+)"/.exec(xml)?.[1];
  if (!entityId) return { ok: false, detail: "the metadata names no entityID" };
  const services = [...xml.matchAll(/<(?:\w+:)?SingleSignOnService\b([^>]*)>/g)].map((m) => m[1] ?? "");
  const location = (attrs: string) => /\bLocation="([^"]+)"/.exec(attrs)?.[1];
  const redirect = services.find((s) => /HTTP-Redirect/.test(s)) ?? services.find((s) => /HTTP-POST/.test(s));
  const ssoUrl = redirect ? location(redirect) : undefined;
  if (!ssoUrl) return { ok: false, detail: "the metadata has no HTTP-Redirect or HTTP-POST SingleSignOnService" };
  const certificates = [...xml.matchAll(/<(?:\w+:)?X509Certificate>([^<]+)<\/(?:\w+:)?X509Certificate>/g)].map((m) =>
    pem(m[1] ?? ""),
  );
  if (certificates.length === 0) return { ok: false, detail: "the metadata has no signing certificate" };
  return { ok: true, idp: { entityId, ssoUrl: ssoUrl.replace(/&amp;/g, "&"), certificates } };
}

/** Why a certificate cannot verify assertions now, or null. */
function certificateProblem(certificate: string): string | null {
  try {
    const cert = new X509Certificate(certificate);
    const now = Date.now();
    if (new Date(cert.validTo).getTime() < now) return `the IdP certificate expired on ${cert.validTo}`;
    if (new Date(cert.validFrom).getTime() > now) return `the IdP certificate is valid only from ${cert.validFrom}`;
    return null;
  } catch {
    return "the IdP certificate is not a valid X.509 certificate";
  }
}

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
