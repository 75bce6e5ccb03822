import "server-only";
import { APIError } from "better-auth/api";
import { decideSignup } from "@switchboard/core/deployment";
import type { Db } from "@switchboard/db/client";
import { claimDeploymentOwnership, deploymentHasOwner, hasPendingInvitation } from "@switchboard/db/queries/deployment";
import { logger } from "@switchboard/runtime/logger";
import { effectiveSignupMode } from "../services/deployment.service";

/**
 * Better Auth database hooks that gate account creation (every way an account is made, not only the sign-up
 * form): in invite-only mode only an address with a pending, unexpired invitation gets in, except the very
 * first account, which becomes the deployment's owner.
 *
 * The refusal is a 400, not a 403: with email verification on, Better Auth answers a 403 from user creation
 * with its generic "check your email" success, which would hide the refusal from the person signing up.
 */
export function signupDatabaseHooks(db: () => Db) {
  return {
    user: {
      create: {
        before: async (user: { email: string }) => {
          const { mode } = await effectiveSignupMode(db());
          const decision = decideSignup({
            mode,
            deploymentHasOwner: await deploymentHasOwner(db()),
            hasPendingInvitation: await hasPendingInvitation(db(), { email: user.email }),
          });
          if (!decision.allowed)
            throw new APIError("BAD_REQUEST", { code: "SIGNUP_INVITATION_REQUIRED", message: decision.reason });
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
