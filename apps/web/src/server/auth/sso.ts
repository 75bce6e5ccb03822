import { sso } from "@better-auth/sso";
import { domainOwned, emailDomain } from "@switchboard/core/sso";
import type { Db } from "@switchboard/db/client";
import { passwordlessAccount, ssoDomainRules } from "@switchboard/db/queries/sso";
import type { BetterAuthPlugin } from "better-auth";
import { APIError, createAuthMiddleware } from "better-auth/api";
import { urlRefusal } from "@switchboard/runtime/egress";
import { logger as defaultLogger } from "@switchboard/runtime/logger";
import type { Logger } from "pino";
import { actorLabel, recordAudit, requestOrigin } from "../audit/record";
import { applyIdentityGroups } from "../services/identity-groups.service";
import { apiErrorOf, groupsOf, redirectOf, samlWindowProblem } from "./sso-answers";
import { privateProviderOrigins } from "./sso-origins";

/**
 * Single sign-on for the console with Better Auth's SSO plugin (OIDC and SAML 2.0), and Switchboard's rules
 * around it:
 * - Providers belong to the deployment: deployment owners add, change and remove them through tRPC
 *   (services/sso.service.ts), which writes the rows (client secret sealed). The plugin's own provider management
 *   endpoints answer 404 over HTTP.
 * - First sign-in creates the account (just in time), also in invite-only mode: the provider vouches for the
 *   domains the owner gave it. An address outside those domains is refused, and the address of an account made
 *   this way counts as confirmed.
 * - A provider marked "SSO only" is the only way in for its domains: password sign-in, sign-up and reset are
 *   refused for them with one sentence.
 * - Every SSO sign-in (and failed one) goes into the deployment's audit chain; after each, the groups the
 *   provider sent go to `applyIdentityGroups`.
 */

/** The paths of the plugin's callbacks, where an account may be created just in time. */
const SSO_CALLBACK = /^\/sso\/(callback(\/[^/]+)?|saml2\/sp\/acs\/[^/]+)$/;
const SSO_CALLBACK_PATHS = new Set(["/sso/callback/:providerId", "/sso/callback", "/sso/saml2/sp/acs/:providerId"]);

/** Whether an account is being created by an SSO sign-in (signup-policy.ts lets those through in invite-only mode). */
export function isSsoAccountCreation(path: string | undefined): boolean {
  return path !== undefined && (SSO_CALLBACK_PATHS.has(path) || SSO_CALLBACK.test(path));
}

/**
 * An identity provider creates accounts for the domains the owner gave it, and no other address: the refusal for
 * an account an SSO callback is about to create (signup-policy.ts calls it), or null. Existing accounts outside
 * the domains are never linked (the plugin checks the domain before linking).
 */
export async function ssoAccountCreationRefusal(
  db: Db,
  { email, providerId }: { email: string; providerId: string | undefined },
): Promise<APIError | null> {
  const domain = emailDomain(email);
  const row = providerId ? await db.ssoProvider.findUnique({ where: { providerId }, select: { domain: true } }) : null;
  if (row && domain && domainOwned(domain, row.domain.split(","))) return null;
  return new APIError("FORBIDDEN", {
    code: "SSO_EMAIL_DOMAIN",
    message: "The identity provider sent an address outside the domains it owns here.",
  });
}

/** The one sentence for an account the identity provider made, which has no password here. */
export function ssoAccountMessage(providerName: string | null): string {
  return `Your account signs in with ${providerName ?? "your organization's identity provider"}: use "Sign in with SSO" (it has no password here).`;
}

/**
 * The sentence for an account without a password of its own (the identity provider made it: SSO or SCIM), naming
 * the provider it is linked to, else the one that owns its domain; null for an account with a password. "Forgot
 * password" would otherwise let such a person choose one and sign in around the provider.
 */
export async function ssoAccountRefusal(db: Db, userId: string): Promise<string | null> {
  const account = await passwordlessAccount(db, userId);
  if (!account) return null;
  const domain = emailDomain(account.email);
  const rules = await ssoDomainRules(db);
  const provider =
    rules.find((r) => account.linkedProviderIds.includes(r.providerId)) ??
    (domain ? rules.find((r) => domainOwned(domain, r.domains)) : undefined);
  return ssoAccountMessage(provider?.name ?? null);
}

/** The plugin's provider management and domain verification, replaced by the console's deployment settings. */
const CLOSED_PATHS = new Set([
  "/sso/register",
  "/sso/providers",
  "/sso/get-provider",
  "/sso/update-provider",
  "/sso/delete-provider",
  "/sso/request-domain-verification",
  "/sso/verify-domain",
]);

export const SSO_SIGN_IN_PAGE = "/sign-in";

/**
 * Where a browser arriving from an identity provider lands when its answer is refused: the sign-in page, which says
 * what happened in one sentence (`ssoErrorSentence` of the error and description; the description is never shown).
 */
export function ssoSignInRedirect(error: string, description?: string | null): string {
  const params = new URLSearchParams({ error: error.slice(0, 100) || "invalid_request" });
  if (description) params.set("error_description", description.slice(0, 300));
  return `${SSO_SIGN_IN_PAGE}?${params.toString()}`;
}

/**
 * Pages Better Auth sends a callback's browser to when the sign-in's state names none: its error page and the app's
 * root (under APP_URL's path, if it has one).
 */
function fallbackPages(appUrl: string): Set<string> {
  const prefix = new URL(appUrl).pathname.replace(/\/+$/, "");
  return new Set([`${prefix}/`, `${prefix}/api/auth/error`]);
}

/**
 * The answer a browser gets from an SSO callback (`isSsoAccountCreation`), whatever refused it: the console's input
 * screen, the plugin's validation, an unknown provider, a state it cannot find, a SAML response without a usable
 * RelayState. Better Auth answers those with a bare 4xx, or a redirect to its own error page or to "/", where the
 * person reads nothing useful; here they land on the sign-in page with the error. A 5xx is left as it is (a bug to
 * see, not a refusal) and so is a success or a redirect to a page the sign-in asked for.
 */
export async function ssoBrowserAnswer(response: Response, appUrl: string): Promise<Response> {
  const origin = new URL(appUrl).origin;
  const redirect = (to: string) =>
    new Response(null, { status: 302, headers: { location: to, "cache-control": "no-store" } });
  const location = response.headers.get("location");
  if (response.status >= 300 && response.status < 400 && location) {
    if (!URL.canParse(location, origin)) return response;
    const url = new URL(location, origin);
    const error = url.searchParams.get("error");
    if (!error || url.origin !== origin || !fallbackPages(appUrl).has(url.pathname)) return response;
    const next = redirect(ssoSignInRedirect(error, url.searchParams.get("error_description")));
    for (const cookie of response.headers.getSetCookie()) next.headers.append("set-cookie", cookie);
    return next;
  }
  if (response.status < 400 || response.status >= 500) return response;
  let body: { code?: unknown; error?: unknown; message?: unknown } = {};
  try {
    body = (await response.clone().json()) as typeof body;
  } catch {
    // a bare status: the code below says enough
  }
  const code = typeof body.code === "string" ? body.code : typeof body.error === "string" ? body.error : null;
  const message = typeof body.message === "string" ? body.message : null;
  return redirect(
    ssoSignInRedirect(
      code ?? (response.status === 404 ? "provider_not_found" : "invalid_request"),
      // Validation text names the plugin's fields; the sign-in page needs only the code.
      code === "VALIDATION_ERROR" ? null : message,
    ),
  );
}

/** Endpoints that take or set a password for an address; refused for the domains of an SSO-only provider. */
const PASSWORD_PATHS = new Set(["/sign-in/email", "/sign-up/email", "/request-password-reset", "/forget-password"]);

/** The one sentence for an address whose domain signs in through its identity provider only. */
export function ssoRequiredMessage(providerName: string): string {
  return `Your organization signs in with ${providerName}: use "Sign in with SSO" (passwords are turned off for this email domain).`;
}

function switchboardSso({
  db,
  logger,
  allowedByEgress,
}: {
  db: () => Db;
  logger: Logger;
  allowedByEgress: (url: string) => boolean;
}): BetterAuthPlugin {
  return {
    id: "switchboard-sso",
    init() {
      return { options: { trustedOrigins: async () => privateProviderOrigins(db, allowedByEgress) } };
    },
    async onRequest(request, ctx) {
      const base = new URL(ctx.baseURL).pathname.replace(/\/+$/, "");
      let path = new URL(request.url).pathname;
      try {
        path = decodeURIComponent(path);
      } catch {
        // keep it as it came
      }
      path = path.replace(/\/{2,}/g, "/").toLowerCase();
      const rest = (path.startsWith(base.toLowerCase()) ? path.slice(base.length) : path).replace(/\/+$/, "");
      if (CLOSED_PATHS.has(rest))
        return {
          response: Response.json(
            { message: "Not found. Deployment owners manage single sign-on in the deployment settings." },
            { status: 404 },
          ),
        };
    },
    hooks: {
      before: [
        {
          matcher: (ctx) => ctx.path !== undefined && PASSWORD_PATHS.has(ctx.path),
          handler: createAuthMiddleware(async (ctx) => {
            const email = (ctx.body as { email?: unknown } | undefined)?.email;
            const domain = typeof email === "string" ? emailDomain(email) : null;
            if (!domain) return;
            const rule = (await ssoDomainRules(db())).find((r) => r.ssoOnly && domainOwned(domain, r.domains));
            if (rule) throw new APIError("FORBIDDEN", { code: "SSO_REQUIRED", message: ssoRequiredMessage(rule.name) });
          }),
        },
        {
          // A reset link names no address: the account behind its token decides.
          matcher: (ctx) => ctx.path === "/reset-password",
          handler: createAuthMiddleware(async (ctx) => {
            const token = (ctx.body as { token?: unknown } | undefined)?.token;
            if (typeof token !== "string" || token.length > 200) return;
            const found = await ctx.context.internalAdapter.findVerificationValue(`reset-password:${token}`);
            if (!found) return;
            const user = await ctx.context.internalAdapter.findUserById(found.value);
            if (!user) return;
            const domain = emailDomain(user.email);
            const rule = domain
              ? (await ssoDomainRules(db())).find((r) => r.ssoOnly && domainOwned(domain, r.domains))
              : undefined;
            if (rule) throw new APIError("FORBIDDEN", { code: "SSO_REQUIRED", message: ssoRequiredMessage(rule.name) });
            // A link mailed to an account the identity provider made (its holder owns the mailbox: no address is
            // disclosed by saying so).
            const refusal = await ssoAccountRefusal(db(), user.id);
            if (refusal) throw new APIError("FORBIDDEN", { code: "SSO_ACCOUNT", message: refusal });
          }),
        },
        {
          // An MCP client's sign-in (issue 16): after the identity provider, the authorization continues where the
          // sign-in page was sent from. The request is re-checked there (client, redirect URI, PKCE, resource).
          matcher: (ctx) => ctx.path === "/sign-in/sso",
          handler: createAuthMiddleware(async (ctx) => {
            const body = ctx.body as { oauth_query?: unknown; callbackURL?: unknown; errorCallbackURL?: unknown };
            if (!body || typeof body !== "object") return;
            const toSignInPage =
              body.errorCallbackURL === undefined ||
              (typeof body.errorCallbackURL === "string" &&
                body.errorCallbackURL.split(/[?#]/)[0] === SSO_SIGN_IN_PAGE);
            if (typeof body.oauth_query === "string" && body.oauth_query.length < 8_000) {
              const params = new URLSearchParams(body.oauth_query);
              // A failed SSO lands on the sign-in page with the client's signed query as it had it (the oauth-provider
              // plugin checks the signature before this request goes on), so signing in again still resumes the client.
              if (params.has("client_id") && params.has("sig") && toSignInPage)
                body.errorCallbackURL = `${SSO_SIGN_IN_PAGE}?${params.toString()}`;
              // Without the signature and Better Auth's own markers (ba_iat, ba_param, ...): the request as the client sent it.
              for (const key of [...params.keys()])
                if (key === "sig" || key === "exp" || key.startsWith("ba_")) params.delete(key);
              if (params.has("client_id")) {
                const base = new URL(ctx.context.baseURL).pathname.replace(/\/+$/, "");
                body.callbackURL = `${base}/oauth2/authorize?${params.toString()}`;
              }
            }
            if (body.errorCallbackURL === undefined) body.errorCallbackURL = SSO_SIGN_IN_PAGE;
          }),
        },
      ],
      after: [
        {
          matcher: (ctx) => isSsoAccountCreation(ctx.path) && ctx.request !== undefined,
          handler: createAuthMiddleware(async (ctx) => {
            const returned = ctx.context.returned;
            const session = ctx.context.newSession;
            const providerId = String((ctx.params as { providerId?: unknown } | undefined)?.providerId ?? "");
            const protocol = ctx.path.includes("saml2") ? "saml" : "oidc";
            const redirect = redirectOf(returned);
            const error = session ? null : apiErrorOf(returned);
            const failed = !session;
            const reason = failed ? (redirect.error ?? error?.code ?? "unknown") : null;
            const description = failed ? (redirect.description ?? error?.message ?? null) : null;
            await recordAudit(db(), {
              teamId: null,
              actorId: session?.user.id ?? null,
              actorLabel: session ? actorLabel(session.user) : `SSO provider ${providerId || "(unknown)"}`,
              action: failed ? "auth.sso_sign_in_failed" : "auth.sso_sign_in",
              targetType: "user",
              targetId: session?.user.id ?? null,
              targetLabel: session?.user.email ?? null,
              detail: {
                providerId,
                protocol,
                ...(failed ? { reason: reason!.slice(0, 100), description: description?.slice(0, 300) ?? null } : {}),
              },
              ...requestOrigin(ctx.request!.headers),
            });
            if (failed)
              logger.info(
                { providerId, protocol, reason, description: description?.slice(0, 300) },
                "SSO sign-in failed",
              );
            // The plugin answers some SAML failures (an expired assertion, a bad signature) with a bare 400 or a
            // generic "Invalid SAML response": the browser lands on the sign-in page, with the validity window as the
            // reason when that is what failed.
            if (protocol !== "saml" || !failed) return;
            const window = samlWindowProblem((ctx.body as { SAMLResponse?: unknown } | undefined)?.SAMLResponse);
            if (error && !redirect.location)
              throw ctx.redirect(
                ssoSignInRedirect(
                  error.code === "BAD_REQUEST" ? "invalid_saml_response" : error.code,
                  window ?? error.message,
                ),
              );
            if (window && redirect.location) {
              const url = new URL(redirect.location, ctx.context.baseURL);
              url.searchParams.set("error_description", window);
              throw ctx.redirect(
                url.origin === new URL(ctx.context.baseURL).origin ? url.pathname + url.search : url.toString(),
              );
            }
          }),
        },
      ],
    },
  };
}

export function ssoPlugins(
  db: () => Db,
  {
    logger = defaultLogger,
    allowedByEgress = (url: string) => urlRefusal(url) === null,
  }: { logger?: Logger; allowedByEgress?: (url: string) => boolean } = {},
) {
  return [
    sso({
      schema: {
        ssoProvider: {
          modelName: "ssoProvider",
          additionalFields: {
            name: { type: "string", required: false, input: false },
            ssoOnly: { type: "boolean", required: false, input: false },
          },
        },
      },
      // Every provider's domains are vouched for by the deployment owner who added it (domainVerified is stored
      // true); the plugin's DNS verification endpoints stay closed.
      domainVerification: { enabled: true },
      provisionUserOnEveryLogin: true,
      async provisionUser({ user, userInfo, provider }) {
        // The provider owns the address's domain (an account it creates is checked by ssoAccountCreationRefusal,
        // one it links by the plugin): the address counts as confirmed.
        if (!user.emailVerified) await db().user.update({ where: { id: user.id }, data: { emailVerified: true } });
        await applyIdentityGroups({ userId: user.id, providerId: provider.providerId, groups: groupsOf(userInfo) });
      },
      saml: {
        // SAML2Int: an assertion says when it is valid; one that does not is refused.
        requireTimestamps: true,
        algorithms: { onDeprecated: "reject" },
      },
    }),
    switchboardSso({ db, logger, allowedByEgress }),
  ];
}
