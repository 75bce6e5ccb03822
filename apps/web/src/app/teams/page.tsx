import { HydrateClient, trpc, getQueryClient } from "~/trpc/server";
import Link from "next/link";
import { getDb } from "@switchboard/db/client";
import { isDeploymentOwner } from "@switchboard/db/queries/deployment";
import { requireUser } from "~/server/page-auth";
import { SignOutButton } from "~/components/sign-out-button";
import { TeamList } from "./team-list";

export const dynamic = "force-dynamic";

export default async function TeamsPage() {
  const user = await requireUser("/teams");
  await getQueryClient().prefetchQuery(trpc.team.list.queryOptions());
  const deploymentOwner = await isDeploymentOwner(getDb(), user.id);
  return (
    <div className="centered" style={{ maxWidth: 640 }}>
      <div className="row" style={{ justifyContent: "space-between", marginBottom: "1rem" }}>
        <span className="muted">Signed in as {user.email}</span>
        <span className="row">
          {deploymentOwner && <Link href="/settings/deployment">Deployment settings</Link>}
          <SignOutButton />
        </span>
      </div>
      <HydrateClient>
        <TeamList />
      </HydrateClient>
    </div>
  );
}
