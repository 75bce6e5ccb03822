import { isTeamAdminRole } from "@switchboard/core/accounts";
import { HydrateClient, getQueryClient, trpc } from "~/trpc/server";
import { requireTeam } from "~/server/page-auth";
import { searchOf } from "~/server/search-params";
import { ServersView } from "./servers-view";

export default async function ServersPage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string }>;
  searchParams: Promise<{ q?: string | string[] }>;
}) {
  const { slug } = await params;
  const search = searchOf(await searchParams);
  const { team, role } = await requireTeam(slug);
  await getQueryClient().prefetchInfiniteQuery(
    trpc.installation.list.infiniteQueryOptions(
      { teamId: team.id, limit: 25, ...(search ? { search } : {}) },
      { getNextPageParam: (last) => last.nextCursor },
    ),
  );
  return (
    <HydrateClient>
      <ServersView teamId={team.id} slug={team.slug} isAdmin={isTeamAdminRole(role)} />
    </HydrateClient>
  );
}
