import { notFound } from "next/navigation";
import { getDb } from "@switchboard/db/client";
import { isDeploymentOwner } from "@switchboard/db/queries/deployment";
import { UserShell } from "~/components/user-shell";
import { requireUser } from "~/server/page-auth";
import { SCIM_BASE_PATH } from "~/server/scim/handler";
import { env } from "@switchboard/runtime/env";
import { HydrateClient, getQueryClient, trpc } from "~/trpc/server";
import { IdentityView } from "./identity-view";

export const dynamic = "force-dynamic";

/** Deployment owners only, like the deployment settings: the SCIM token and the group-to-team mappings. */
export default async function IdentitySettingsPage() {
  const user = await requireUser("/settings/identity");
  if (!(await isDeploymentOwner(getDb(), user.id))) notFound();
  await Promise.all([
    getQueryClient().prefetchQuery(trpc.identity.scimToken.queryOptions()),
    getQueryClient().prefetchQuery(trpc.identity.groupMappings.queryOptions()),
  ]);
  return (
    <UserShell user={user}>
      <div style={{ maxWidth: 900 }}>
        <HydrateClient>
          <IdentityView scimUrl={new URL(SCIM_BASE_PATH, env().APP_URL).toString()} />
        </HydrateClient>
      </div>
    </UserShell>
  );
}
