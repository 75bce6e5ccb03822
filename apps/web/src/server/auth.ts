import "server-only";
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { nextCookies } from "better-auth/next-js";
import { organization } from "better-auth/plugins";
import { authDbClient } from "@switchboard/db/auth-client";
import { getDb } from "@switchboard/db/client";
import { env } from "@switchboard/runtime/env";
import { accountOptions } from "./auth/account-options";
import { switchboardGuard } from "./auth/guard-plugin";
import { auditPlugin } from "./auth/audit-plugin";
import { scimProvisioning } from "./auth/scim";
import { mcpAuthorizationPlugins } from "./auth/mcp-authorization";
import { signupDatabaseHooks } from "./auth/signup-policy";
import { ssoAccountRefusal, ssoPlugins } from "./auth/sso";
import { upstreamEgressFetch } from "@switchboard/runtime/egress";
import { logger } from "@switchboard/runtime/logger";
import { betterAuthLogger } from "./auth/better-auth-logger";
import { redis } from "@switchboard/runtime/redis";

const INVITATION_TTL_SECONDS = 7 * 24 * 3600;

function createAuth() {
  const e = env();
  return betterAuth({
    appName: "Switchboard",
    baseURL: e.APP_URL,
    secret: e.BETTER_AUTH_SECRET,
    trustedOrigins: [e.APP_URL],
    database: prismaAdapter(authDbClient(getDb()), { provider: "postgresql" }),
    // Passwords, verification and reset mail, rate limits in Redis, Secure cookies: see auth/account-options.ts.
    ...accountOptions({ env: e, logger, redis, ssoAccountRefusal: (userId) => ssoAccountRefusal(getDb(), userId) }),
    session: { expiresIn: 60 * 60 * 24 * 14, updateAge: 60 * 60 * 24 },
    telemetry: { enabled: false },
    logger: betterAuthLogger(logger),
    databaseHooks: signupDatabaseHooks(getDb),
    plugins: [
      organization({
        // Teams are created through our tRPC router (which also checks the slug), never straight from the client.
        allowUserToCreateOrganization: true,
        invitationExpiresIn: INVITATION_TTL_SECONDS,
        // Whoever holds an invitation link must also prove they own the invited address.
        requireEmailVerificationOnInvitation: true,
        // Invitations travel as links the admin copies from the console; there is no mail server to send them.
        async sendInvitationEmail(data) {
          logger.info({ invitationId: data.id, teamId: data.organization.id }, "invitation created");
        },
        schema: {
          organization: { modelName: "team" },
          member: { modelName: "membership", fields: { organizationId: "teamId" } },
          invitation: { fields: { organizationId: "teamId" } },
        },
      }),
      // MCP clients sign in to the route with OAuth: Switchboard is its authorization server (auth/mcp-authorization.ts).
      ...mcpAuthorizationPlugins({
        appUrl: e.APP_URL,
        db: getDb,
        egressFetch: upstreamEgressFetch(),
        logger,
        redis,
        redisPrefix: e.REDIS_PREFIX,
      }),
      // Single sign-on (OIDC, SAML 2.0) for the console, providers managed by deployment owners: see auth/sso.ts.
      ...ssoPlugins(getDb),
      // Organization endpoints closed over HTTP, password policy, no session token in JSON.
      switchboardGuard(),
      // Sign-ins (and failed ones), sign-ups, password changes, OAuth consents into the audit trail.
      auditPlugin(getDb),
      scimProvisioning(getDb), // no sign-in for a person their identity provider deactivated (auth/scim.ts)
      nextCookies(),
    ],
  });
}

export type Auth = ReturnType<typeof createAuth>;

// Kept on globalThis for `next dev`: hot reload re-evaluates this module in the console, and a second instance
// would open a second database pool and lose Better Auth's in-memory state. One of the four (see CONTRIBUTING).
const globalForAuth = globalThis as unknown as { __switchboardAuth?: Auth };

/** Created on first use: the build imports this module without any environment. */
export function getAuth(): Auth {
  globalForAuth.__switchboardAuth ??= createAuth();
  return globalForAuth.__switchboardAuth;
}

export type Session = NonNullable<Awaited<ReturnType<Auth["api"]["getSession"]>>>;

export async function getSession(headers: Headers): Promise<Session | null> {
  return getAuth().api.getSession({ headers });
}
