import { cimd } from "@better-auth/cimd";
import { mcp } from "@better-auth/mcp";
import type { BetterAuthPlugin } from "better-auth";
import { createAuthMiddleware, getSessionFromCtx } from "better-auth/api";
import { jwt } from "better-auth/plugins";
import type { Db } from "@switchboard/db/client";
import { ensureOAuthResource, forgetStaleConsent, installationSlugExists } from "@switchboard/db/queries/oauth-grant";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  issuerUrl,
  MCP_SCOPES,
  mcpAuthorizationAvailable,
  mcpResourceUrl,
  slugOfResource,
} from "@switchboard/runtime/mcp-authorization";
import type { Logger } from "pino";
import type { RedisClient } from "@switchboard/runtime/redis-client";
import { idJag } from "./id-jag";

/**
 * Switchboard is the OAuth 2.1 authorization server for its own MCP route, built from Better Auth's plugins:
 * `jwt` (signing keys, JWKS), `@better-auth/mcp` (the OAuth 2.1 provider configured for MCP: authorization code
 * with PKCE S256, RFC 8707 resource binding, RFC 7591 registration, RFC 8414 metadata, rotating refresh tokens)
 * and `@better-auth/cimd` (clients identified by a Client ID Metadata Document, fetched under our egress rules).
 * What is ours: which resources exist (the route and one per installation slug), the consent page (team and
 * tool mode), and the grant row the route checks on every request (services/oauth-grant.service.ts).
 */

/** Access tokens live this long; clients refresh (rotating refresh tokens) for more. */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;

export const CONSENT_PAGE = "/oauth/consent";
export const LOGIN_PAGE = "/sign-in";

/**
 * Better Auth endpoints of the provider that manage clients and consents for a signed-in user. Our console does
 * that through tRPC (the Connect page), where the grant and its sessions end together; over HTTP they answer 404.
 */
const CLOSED_PATHS = new Set([
  "/oauth2/create-client",
  "/oauth2/update-client",
  "/oauth2/delete-client",
  "/oauth2/get-client",
  "/oauth2/get-clients",
  "/oauth2/get-consent",
  "/oauth2/get-consents",
  "/oauth2/update-consent",
  "/oauth2/delete-consent",
  "/oauth2/end-session",
  "/oauth2/introspect",
  "/token",
]);

/** Endpoints an OAuth client (not a browser) calls, whose every refusal is OAuth's error JSON (RFC 6749 §5.2, RFC 7591 §3.2.2). */
const OAUTH_CLIENT_PATHS = new Set(["/oauth2/token", "/oauth2/revoke", "/oauth2/register"]);

export function isOAuthClientPath(path: string): boolean {
  return OAUTH_CLIENT_PATHS.has(path);
}

/**
 * A refusal of an OAuth client endpoint in OAuth's shape. Better Auth answers some refusals before the provider sees
 * the request (a JSON body where a form belongs: 415 with `{ code, message }`), and the console's input screen
 * answers in Better Auth's shape: those become `invalid_request` with the same sentence. The provider's own OAuth
 * errors and every success pass unchanged.
 */
export async function asOAuthRefusal(response: Response): Promise<Response> {
  if (response.status < 400 || response.status >= 500) return response;
  type Body = { error?: unknown; message?: unknown } | null;
  let body: Body = null;
  try {
    body = (await response.clone().json()) as Body;
  } catch {
    // not JSON: answered with the generic sentence below
  }
  if (body && typeof body.error === "string") return response;
  const description = typeof body?.message === "string" ? body.message : "The request is not a valid OAuth request.";
  return Response.json(
    { error: "invalid_request", error_description: description.slice(0, 300) },
    { status: response.status, headers: { "cache-control": "no-store" } },
  );
}

function resourcesOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return [];
}

/** A loopback HTTP redirect (RFC 8252 section 7.3) or a private-use scheme (section 7.1). */
function isNativeRedirect(uri: string): boolean {
  if (!URL.canParse(uri)) return false;
  const url = new URL(uri);
  if (url.protocol === "http:") return ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  return url.protocol !== "https:" && url.protocol.includes(".");
}

/** Keeps the provider's resources and consents in step with Switchboard's installations and grants. */
function switchboardMcpResources({ appUrl, db }: { appUrl: string; db: () => Db }): BetterAuthPlugin {
  const basePath = new URL(issuerUrl(appUrl)).pathname;
  return {
    id: "switchboard-mcp-resources",
    async onRequest(request) {
      const path = new URL(request.url).pathname;
      const rest = path.startsWith(basePath) ? path.slice(basePath.length) : path;
      if (CLOSED_PATHS.has(rest.replace(/\/+$/, ""))) {
        return {
          response: Response.json(
            { message: "Not found. Manage signed-in clients on the Connect page." },
            { status: 404 },
          ),
        };
      }
    },
    hooks: {
      before: [
        {
          // OpenID registration defaults to a web application, which may not redirect to loopback; MCP clients that
          // run on the member's machine (Claude Code, VS Code, the SDK's examples) register loopback redirects and
          // leave the type out. Such a registration is a native application (RFC 8252), as mcp-remote declares itself.
          matcher: (ctx) => ctx.path === "/oauth2/register",
          handler: createAuthMiddleware(async (ctx) => {
            const body = ctx.body as { application_type?: unknown; redirect_uris?: unknown } | undefined;
            if (
              !body ||
              body.application_type !== undefined ||
              !Array.isArray(body.redirect_uris) ||
              body.redirect_uris.length === 0
            )
              return;
            if (body.redirect_uris.every((uri) => typeof uri === "string" && isNativeRedirect(uri)))
              body.application_type = "native";
          }),
        },
        {
          matcher: (ctx) => ctx.path === "/oauth2/authorize" || ctx.path === "/oauth2/token",
          handler: createAuthMiddleware(async (ctx) => {
            // A per-server route becomes a resource the first time a client asks for it, if an installation has its slug.
            const requested = [
              ...resourcesOf((ctx.query as Record<string, unknown> | undefined)?.resource),
              ...resourcesOf((ctx.body as Record<string, unknown> | undefined)?.resource),
            ];
            for (const resource of requested) {
              const slug = slugOfResource(appUrl, resource);
              if (slug && (await installationSlugExists(db(), { slug })))
                await ensureOAuthResource(db(), {
                  identifier: resource,
                  name: `MCP server ${slug}`,
                  allowedScopes: [...MCP_SCOPES],
                });
            }
            if (ctx.path !== "/oauth2/authorize") return;
            // A client that names no resource (written before RFC 8707 came to MCP) gets a token for the whole route.
            const query = ctx.query as Record<string, unknown> | undefined;
            if (
              ctx.request?.method === "GET" &&
              query &&
              query.resource === undefined &&
              typeof query.client_id === "string"
            )
              query.resource = mcpResourceUrl(appUrl, null);
            // A consent the provider remembers without a grant of ours behind it (revoked, member removed) asks again.
            const clientId =
              (ctx.query as Record<string, unknown> | undefined)?.client_id ??
              (ctx.body as Record<string, unknown> | undefined)?.client_id;
            if (typeof clientId !== "string") return;
            const session = await getSessionFromCtx(ctx).catch(() => null);
            if (session) await forgetStaleConsent(db(), { userId: session.user.id, clientId });
          }),
        },
      ],
    },
  };
}

/** Fetches a Client ID Metadata Document (or its JWKS) under the deployment's egress rules, never following a redirect. */
export function metadataDocumentFetch(egressFetch: FetchLike) {
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    return egressFetch(url, { ...init, redirect: "error", signal: init?.signal ?? AbortSignal.timeout(5_000) });
  };
}

export function mcpAuthorizationPlugins({
  appUrl,
  db,
  egressFetch,
  logger,
  redis,
  redisPrefix,
}: {
  appUrl: string;
  db: () => Db;
  egressFetch: FetchLike;
  logger: Logger;
  redis: () => RedisClient;
  /** The deployment's REDIS_PREFIX: every key this writes is under it. */
  redisPrefix: string;
}) {
  if (!mcpAuthorizationAvailable(appUrl)) {
    logger.warn(
      { appUrl },
      "APP_URL is plain HTTP on a public name: MCP clients cannot sign in with OAuth (personal access tokens still work)",
    );
    return [];
  }
  return [
    switchboardMcpResources({ appUrl, db }),
    jwt({ disableSettingJwtHeader: true }),
    mcp({
      resource: mcpResourceUrl(appUrl, null),
      // Its scopes explicitly: the provider reads an empty list as "no scope allowed".
      resources: [
        { identifier: mcpResourceUrl(appUrl, null), name: "Switchboard MCP route", allowedScopes: [...MCP_SCOPES] },
      ],
      resourceSeedMode: "merge",
      loginPage: LOGIN_PAGE,
      consentPage: CONSENT_PAGE,
      scopes: [...MCP_SCOPES],
      grantTypes: ["authorization_code", "refresh_token"],
      accessTokenExpiresIn: ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenExpiresIn: REFRESH_TOKEN_TTL_SECONDS,
      // Older clients register themselves (RFC 7591) without credentials; a team admin may refuse them (consent page).
      allowDynamicClientRegistration: true,
      allowUnauthenticatedClientRegistration: true,
      // Any client may ask for any of our resources: the grant (member, team, mode) decides what it reaches.
      enforcePerClientResources: false,
      // A client that lost a refresh answer on the network may retry it for this long; after that a replay fails.
      refreshTokenReuseInterval: 30,
    }),
    cimd({
      fetchClientMetadataResource: metadataDocumentFetch(egressFetch),
      metadataProfile: "mcp-2026-07-28",
    }),
    // Enterprise-managed authorization: identity assertion grants (ID-JAG) from trusted enterprise IdPs (id-jag.ts).
    idJag({ appUrl, db, redis, redisPrefix, egressFetch }),
  ];
}
