import Link from "next/link";
import { HydrateClient, trpc, getQueryClient } from "~/trpc/server";
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
          <Link href="/account">Account</Link>
          {deploymentOwner && <Link href="/settings/deployment">Deployment settings</Link>}
          <SignOutButton />
        </span>
      </div>
      {!user.emailVerified && (
        <p className="card" role="status">
          Confirm {user.email} with the link we mailed you before you join a team.{" "}
          <Link href="/account">Send it again</Link>
        </p>
      )}
      <HydrateClient>
        <TeamList />
      </HydrateClient>
    </div>
  );
}
