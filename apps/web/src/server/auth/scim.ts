import type { BetterAuthPlugin } from "better-auth";
import { APIError } from "better-auth/api";
import type { Db } from "@switchboard/db/client";
import { isUserDeactivated } from "@switchboard/db/queries/scim";

/**
 * SCIM provisioning's part in Better Auth (the SCIM endpoint itself is ours: apps/web/src/server/scim, and
 * docs/scim.md says why). A person their identity provider deactivated gets no new session by any sign-in
 * method (password, SSO, ...) until the provider sets them active again; their existing sessions were deleted
 * when they were deactivated.
 */
export function scimProvisioning(db: () => Db): BetterAuthPlugin {
  return {
    id: "switchboard-scim",
    init() {
      return {
        options: {
          databaseHooks: {
            session: {
              create: {
                async before(session: { userId: string }) {
                  if (await isUserDeactivated(db(), session.userId))
                    throw new APIError("FORBIDDEN", {
                      message: "Your account is deactivated by your organisation's identity provider.",
                      code: "ACCOUNT_DEACTIVATED",
                    });
                },
              },
            },
          },
        },
      };
    },
  };
}
