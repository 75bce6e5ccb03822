import { isTeamAdminRole } from "@switchboard/core/accounts";
import { HydrateClient, getQueryClient, trpc } from "~/trpc/server";
import { requireTeam } from "~/server/page-auth";
import { CatalogueView } from "./catalogue-view";

export default async function CataloguePage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { team, role } = await requireTeam(slug);
  await getQueryClient().prefetchInfiniteQuery(
    trpc.catalogue.list.infiniteQueryOptions(
      { teamId: team.id, limit: 25 },
      { getNextPageParam: (last) => last.nextCursor },
    ),
  );
  return (
    <HydrateClient>
      <CatalogueView teamId={team.id} teamSlug={slug} isAdmin={isTeamAdminRole(role)} />
    </HydrateClient>
  );
}
