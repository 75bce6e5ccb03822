import { notFound } from "next/navigation";
import { getDb } from "@switchboard/db/client";
import { isDeploymentOwner } from "@switchboard/db/queries/deployment";
import { UserShell } from "~/components/user-shell";
import { requireUser } from "~/server/page-auth";
import { HydrateClient, getQueryClient, trpc } from "~/trpc/server";
import { DeploymentView } from "./deployment-view";

export const dynamic = "force-dynamic";

/** Deployment owners only; for anyone else the page does not exist (as the tRPC router answers NOT_FOUND). */
export default async function DeploymentSettingsPage() {
  const user = await requireUser("/settings/deployment");
  if (!(await isDeploymentOwner(getDb(), user.id))) notFound();
  await Promise.all([
    getQueryClient().prefetchQuery(trpc.deployment.settings.queryOptions()),
    getQueryClient().prefetchQuery(trpc.deployment.owners.queryOptions()),
    getQueryClient().prefetchQuery(trpc.enterpriseIdp.list.queryOptions()),
    getQueryClient().prefetchInfiniteQuery(
      trpc.deployment.teams.infiniteQueryOptions({ limit: 50 }, { getNextPageParam: (last) => last.nextCursor }),
    ),
  ]);
  return (
    <UserShell user={user}>
      <div style={{ maxWidth: 900 }}>
        <HydrateClient>
          <DeploymentView />
        </HydrateClient>
      </div>
    </UserShell>
  );
}
