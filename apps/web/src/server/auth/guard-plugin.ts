import { isTeamRole, passwordProblem, slugProblem } from "@switchboard/core/accounts";
import type { BetterAuthPlugin } from "better-auth";
import { APIError, createAuthMiddleware, getSessionFromCtx } from "better-auth/api";
import { isCommonPassword } from "./common-passwords";

/** Endpoints whose answers carried the session token in JSON; the httpOnly cookie carries it instead. */
const TOKEN_PATHS = new Set(["/sign-in/email", "/sign-up/email", "/get-session", "/list-sessions", "/change-password"]);

function refuse(status: number, message: string): Response {
  return new Response(JSON.stringify({ message }), { status, headers: { "content-type": "application/json" } });
}

/** Also catches spellings a router might resolve to the same route (`//`, `%2F`, capitals). */
function isOrganizationPath(pathname: string, basePath: string): boolean {
  let path = pathname;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    // keep it as it came
  }
  path = path.replace(/\/{2,}/g, "/").toLowerCase();
  const base = basePath.replace(/\/+$/, "").toLowerCase();
  const rest = path.startsWith(base) ? path.slice(base.length) : path;
  return /^\/organization(\/|$)/.test(rest);
}

function withoutToken(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutToken);
  if (!value || typeof value !== "object" || value instanceof Response) return value;
  const { token: _token, ...rest } = value as Record<string, unknown>;
  if (rest.session && typeof rest.session === "object") {
    const { token: _sessionToken, ...session } = rest.session as Record<string, unknown>;
    rest.session = session;
  }
  return rest;
}

function passwordFromBody(path: string, body: Record<string, unknown>): { password: unknown; email: unknown } | null {
  if (path === "/sign-up/email") return { password: body.password, email: body.email };
  if (path === "/reset-password" || path === "/change-password")
    return { password: body.newPassword, email: undefined };
  return null;
}

/**
 * Our rules on top of Better Auth:
 * - Its organization endpoints are not reachable over HTTP: members, roles, invitations and teams change only
 *   through our tRPC services, which do the cleanup (tokens, instances, worker jobs). Our services still call
 *   them in-process (`auth.api.*`), checked here against our role and slug rules.
 * - Passwords follow the policy of @switchboard/core/accounts wherever one is chosen.
 * - No session token in JSON answers.
 */
export function switchboardGuard() {
  return {
    id: "switchboard-guard",
    async onRequest(request, ctx) {
      if (isOrganizationPath(new URL(request.url).pathname, new URL(ctx.baseURL).pathname)) {
        return { response: refuse(404, "Not found. Manage teams and members from the console.") };
      }
    },
    hooks: {
      before: [
        {
          matcher: (ctx) => ctx.path === "/organization/create" || ctx.path === "/organization/update",
          handler: createAuthMiddleware(async (ctx) => {
            const body = (ctx.body ?? {}) as { slug?: unknown; data?: { slug?: unknown } };
            const slug = ctx.path === "/organization/create" ? body.slug : body.data?.slug;
            if (slug === undefined && ctx.path === "/organization/update") return;
            const problem = typeof slug === "string" ? slugProblem(slug) : "Choose a URL name for the team.";
            if (problem) throw new APIError("BAD_REQUEST", { message: problem, code: "INVALID_SLUG" });
          }),
        },
        {
          matcher: (ctx) =>
            ctx.path === "/organization/invite-member" || ctx.path === "/organization/update-member-role",
          handler: createAuthMiddleware(async (ctx) => {
            const role = (ctx.body as { role?: unknown } | undefined)?.role;
            // An owner is made by an owner through our changeRole, never by an invitation.
            if (!isTeamRole(role) || (ctx.path === "/organization/invite-member" && role === "owner")) {
              throw new APIError("BAD_REQUEST", { message: "Choose the role admin or member.", code: "INVALID_ROLE" });
            }
          }),
        },
        {
          matcher: (ctx) => ctx.path !== undefined && passwordFromBody(ctx.path, {}) !== null,
          handler: createAuthMiddleware(async (ctx) => {
            const fields = passwordFromBody(ctx.path, (ctx.body ?? {}) as Record<string, unknown>);
            if (!fields || typeof fields.password !== "string") return;
            // Changing: the account is the session's (a reset names no account before its token is checked).
            const email =
              typeof fields.email === "string"
                ? fields.email
                : ctx.path === "/change-password"
                  ? ((await getSessionFromCtx(ctx))?.user.email ?? null)
                  : null;
            const problem = passwordProblem(fields.password, { isCommon: isCommonPassword, email });
            if (problem) throw new APIError("BAD_REQUEST", { message: problem, code: "PASSWORD_POLICY" });
          }),
        },
      ],
      after: [
        {
          // Only answers that leave over HTTP: in-process callers (our services, tests) may need the session.
          matcher: (ctx) => ctx.path !== undefined && TOKEN_PATHS.has(ctx.path) && ctx.request !== undefined,
          handler: createAuthMiddleware(async (ctx) => {
            const returned = ctx.context.returned;
            if (!returned || typeof returned !== "object" || returned instanceof Response) return;
            return ctx.json(withoutToken(returned) as Record<string, unknown>);
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
