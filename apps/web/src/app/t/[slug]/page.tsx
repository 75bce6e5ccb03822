import { isTeamAdminRole } from "@switchboard/core/accounts";
import { HydrateClient, getQueryClient, trpc } from "~/trpc/server";
import { requireTeam } from "~/server/page-auth";
import { OverviewMatrix } from "./overview-matrix";

export default async function TeamOverview({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { team, role } = await requireTeam(slug);
  await getQueryClient().prefetchInfiniteQuery(
    trpc.instance.matrix.infiniteQueryOptions({ teamId: team.id, limit: 25 }, { getNextPageParam: (last) => last.nextCursor }),
  );
  return (
    <HydrateClient>
      <OverviewMatrix teamId={team.id} teamName={team.name} slug={team.slug} isAdmin={isTeamAdminRole(role)} />
    </HydrateClient>
  );
}
