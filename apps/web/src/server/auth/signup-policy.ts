import "server-only";
import { APIError } from "better-auth/api";
import { decideSignup } from "@switchboard/core/deployment";
import type { Db } from "@switchboard/db/client";
import { claimDeploymentOwnership, deploymentHasOwner, hasPendingInvitation } from "@switchboard/db/queries/deployment";
import { logger } from "@switchboard/runtime/logger";
import { effectiveSignupMode } from "../services/deployment.service";
import { isSsoAccountCreation, ssoAccountCreationRefusal } from "./sso";

/**
 * Better Auth database hooks that gate account creation (every way an account is made, not only the sign-up
 * form): in invite-only mode only an address with a pending, unexpired invitation gets in, except the very
 * first account, which becomes the deployment's owner.
 *
 * The refusal is a 403 on purpose: the sign-up endpoint answers a 403 from user creation with the same generic
 * success it gives an address that already has an account (a synthetic user, no session). So sign-up answers
 * alike for a new address, an existing one and one without an invitation, in both modes: its answer never
 * tells whether an address has an account. The sign-up page says up front that sign-up is by invitation only,
 * and nothing is mailed to an uninvited address (there is no account to warn, and a mail per try would make
 * sign-up a way to send mail to anyone). Other ways of creating an account see the 403 and its sentence, except
 * single sign-on, whose provider vouches for the domains the deployment owner gave it.
 */
export function signupDatabaseHooks(db: () => Db) {
  return {
    user: {
      create: {
        before: async (
          user: { email: string },
          ctx?: { path?: string; params?: Record<string, string | undefined> } | null,
        ) => {
          // An SSO sign-in creates the account just in time when its provider owns the address's domain (auth/sso.ts).
          if (isSsoAccountCreation(ctx?.path)) {
            const refusal = await ssoAccountCreationRefusal(db(), {
              email: user.email,
              providerId: ctx?.params?.providerId,
            });
            if (refusal) throw refusal;
            return;
          }
          const { mode } = await effectiveSignupMode(db());
          const decision = decideSignup({
            mode,
            deploymentHasOwner: await deploymentHasOwner(db()),
            hasPendingInvitation: await hasPendingInvitation(db(), { email: user.email }),
          });
          if (!decision.allowed)
            throw new APIError("FORBIDDEN", { code: "SIGNUP_INVITATION_REQUIRED", message: decision.reason });
        },
        after: async (user: { id: string }) => {
          // Under a lock: of two first sign-ups at once, one becomes the owner.
          if (await claimDeploymentOwnership(db(), user.id))
            logger.info({ userId: user.id }, "first account: deployment owner");
        },
      },
    },
  };
}
