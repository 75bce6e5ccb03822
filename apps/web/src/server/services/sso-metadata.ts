import "server-only";
import { X509Certificate } from "node:crypto";
import { validateDiscoveryDocument } from "@better-auth/sso";
import { upstreamEgressFetch, urlRefusal } from "@switchboard/runtime/egress";

/**
 * What a single sign-on provider publishes, read for the console's SSO settings (sso.service.ts): an OIDC
 * issuer's discovery document and a SAML IdP's metadata, fetched through the egress rules with a timeout and a
 * size cap, and the certificates they carry checked.
 */

const FETCH_TIMEOUT_MS = 5_000;
const MAX_DOCUMENT_BYTES = 256 * 1024;

/** Discovery documents and metadata are fetched under the deployment's egress rules, never following a redirect. */
export async function fetchDocument(url: string): Promise<{ ok: true; text: string } | { ok: false; detail: string }> {
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
export async function discoverOidc(
  issuer: string,
): Promise<{ ok: true; config: Discovered } | { ok: false; detail: string }> {
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

export type SamlIdp = { entityId: string; ssoUrl: string; certificates: string[] };

export function pem(body: string): string {
  const clean = body.replace(/-----(BEGIN|END) CERTIFICATE-----/g, "").replace(/\s+/g, "");
  return `-----BEGIN CERTIFICATE-----\n${clean.match(/.{1,64}/g)?.join("\n") ?? ""}\n-----END CERTIFICATE-----\n`;
}

/** What Switchboard needs from an IdP's metadata: its entity ID, its HTTP-Redirect or POST SSO URL, its certificates. */
export function readIdpMetadata(xml: string): { ok: true; idp: SamlIdp } | { ok: false; detail: string } {
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
export function certificateProblem(certificate: string): string | null {
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
