import type { BetterAuthPlugin } from "better-auth";
import { APIError, createAuthMiddleware } from "better-auth/api";
import type { Db } from "@switchboard/db/client";
import { actorLabel, recordAudit, requestOrigin } from "../audit/record";

/** Better Auth endpoints whose outcome belongs in the deployment's audit trail, and the action each records. */
const AUDITED_PATHS: Record<string, string> = {
  "/sign-in/email": "auth.sign_in",
  "/sign-up/email": "auth.sign_up",
  "/sign-out": "auth.sign_out",
  "/change-password": "auth.password_changed",
  "/reset-password": "auth.password_reset",
  "/oauth2/consent": "oauth.grant_consented",
  "/oauth2/revoke": "oauth.token_revoked",
};

function apiErrorOf(returned: unknown): { statusCode: number; code: string } | null {
  if (returned instanceof APIError)
    return { statusCode: returned.statusCode, code: String(returned.body?.code ?? returned.status) };
  const r = returned as { statusCode?: unknown; status?: unknown; body?: { code?: unknown } } | null;
  if (r && typeof r === "object" && typeof r.statusCode === "number" && r.statusCode >= 400)
    return { statusCode: r.statusCode, code: String(r.body?.code ?? r.status ?? r.statusCode) };
  return null;
}

/**
 * Sign-ins, failed sign-ins, sign-ups, password changes and OAuth consents go into the deployment's audit chain
 * (they belong to no one team): who (or which address was tried), from where, and why a failure failed. The typed
 * password is never read.
 */
export function auditPlugin(db: () => Db) {
  return {
    id: "switchboard-audit",
    hooks: {
      after: [
        {
          matcher: (ctx) => ctx.path !== undefined && ctx.path in AUDITED_PATHS && ctx.request !== undefined,
          handler: createAuthMiddleware(async (ctx) => {
            const action = AUDITED_PATHS[ctx.path]!;
            const returned = ctx.context.returned;
            // An endpoint's error reaches after hooks as an APIError-shaped object (better-call's class, which may
            // be another copy than ours), so it is told by its HTTP status.
            const error = apiErrorOf(returned);
            const failed = error !== null;
            const session = ctx.context.newSession ?? ctx.context.session ?? null;
            const body = (ctx.body ?? {}) as { email?: unknown };
            const tried = typeof body.email === "string" ? body.email.slice(0, 200) : null;
            const user = session?.user ?? null;
            await recordAudit(db(), {
              teamId: null,
              actorId: user?.id ?? null,
              actorLabel: user ? actorLabel(user) : (tried ?? "anonymous"),
              action: failed ? `${action}_failed` : action,
              targetType: "user",
              targetId: user?.id ?? null,
              targetLabel: user?.email ?? tried,
              detail: error ? { status: error.statusCode, reason: error.code } : {},
              ...requestOrigin(ctx.request!.headers),
            });
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
