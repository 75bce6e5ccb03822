import { isTeamAdminRole } from "@switchboard/core/accounts";
import { HydrateClient, getQueryClient, trpc } from "~/trpc/server";
import { requireTeam } from "~/server/page-auth";
import { searchOf } from "~/server/search-params";
import { MembersView } from "./members-view";

export default async function MembersPage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string }>;
  searchParams: Promise<{ q?: string | string[] }>;
}) {
  const { slug } = await params;
  const search = searchOf(await searchParams);
  const { team, role, user } = await requireTeam(slug);
  const isAdmin = isTeamAdminRole(role);
  const qc = getQueryClient();
  await Promise.all([
    qc.prefetchInfiniteQuery(
      trpc.team.members.infiniteQueryOptions(
        { teamId: team.id, limit: 25, ...(search ? { search } : {}) },
        { getNextPageParam: (last) => last.nextCursor },
      ),
    ),
    isAdmin ? qc.prefetchQuery(trpc.team.invitations.queryOptions({ teamId: team.id })) : Promise.resolve(),
  ]);
  return (
    <HydrateClient>
      <MembersView
        teamId={team.id}
        teamSlug={team.slug}
        isAdmin={isAdmin}
        isOwner={role === "owner"}
        currentUserId={user.id}
      />
    </HydrateClient>
  );
}
