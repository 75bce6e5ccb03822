import { isTeamAdminRole } from "@switchboard/core/accounts";
import { HydrateClient, getQueryClient, trpc } from "~/trpc/server";
import { requireTeam } from "~/server/page-auth";
import { MyServersView } from "./my-servers-view";

export default async function MyServersPage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string }>;
  searchParams: Promise<{ oauth?: string; message?: string }>;
}) {
  const { slug } = await params;
  const { oauth, message } = await searchParams;
  const { team, role } = await requireTeam(slug);
  const qc = getQueryClient();
  await Promise.all([
    qc.prefetchInfiniteQuery(
      trpc.instance.mine.infiniteQueryOptions(
        { teamId: team.id, limit: 25 },
        { getNextPageParam: (last) => last.nextCursor },
      ),
    ),
    qc.prefetchQuery(trpc.instance.myCost.queryOptions({ teamId: team.id })),
  ]);
  return (
    <HydrateClient>
      <MyServersView
        teamId={team.id}
        slug={team.slug}
        isAdmin={isTeamAdminRole(role)}
        oauthResult={
          oauth === "connected"
            ? { ok: true }
            : oauth === "error"
              ? { ok: false, message: message ?? "The authorization did not complete." }
              : null
        }
      />
    </HydrateClient>
  );
}
