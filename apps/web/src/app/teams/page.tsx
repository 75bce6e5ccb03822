import Link from "next/link";
import { HydrateClient, trpc, getQueryClient } from "~/trpc/server";
import { requireUser } from "~/server/page-auth";
import { UserShell } from "~/components/user-shell";
import { TeamList } from "./team-list";

export const dynamic = "force-dynamic";

export default async function TeamsPage() {
  const user = await requireUser("/teams");
  await getQueryClient().prefetchQuery(trpc.team.list.queryOptions());
  return (
    <UserShell user={user}>
      <div style={{ maxWidth: 640 }}>
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
    </UserShell>
  );
}
