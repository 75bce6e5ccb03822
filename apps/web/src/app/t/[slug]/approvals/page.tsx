import { HydrateClient, getQueryClient, trpc } from "~/trpc/server";
import { requireTeam } from "~/server/page-auth";
import { ApprovalsView } from "./approvals-view";

export default async function ApprovalsPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { team } = await requireTeam(slug);
  await getQueryClient().prefetchInfiniteQuery(
    trpc.approvals.list.infiniteQueryOptions(
      { teamId: team.id, state: "waiting", limit: 25 },
      { getNextPageParam: (last) => last.nextCursor },
    ),
  );
  return (
    <HydrateClient>
      <ApprovalsView teamId={team.id} slug={team.slug} />
    </HydrateClient>
  );
}
