import { isTeamAdminRole } from "@switchboard/core/accounts";
import { HydrateClient, getQueryClient, trpc } from "~/trpc/server";
import { requireTeam } from "~/server/page-auth";
import { ActivityView } from "./activity-view";

export default async function ActivityPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { team, role } = await requireTeam(slug);
  await getQueryClient().prefetchQuery(trpc.activity.dashboard.queryOptions({ teamId: team.id, range: "hour" }));
  return (
    <HydrateClient>
      <ActivityView teamId={team.id} teamSlug={team.slug} isAdmin={isTeamAdminRole(role)} />
    </HydrateClient>
  );
}
