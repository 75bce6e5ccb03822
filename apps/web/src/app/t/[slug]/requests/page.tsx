import { isTeamAdminRole } from "@switchboard/core/accounts";
import { HydrateClient, getQueryClient, trpc } from "~/trpc/server";
import { requireTeam } from "~/server/page-auth";
import { TeamRequests } from "./team-requests";

export default async function TeamRequestsPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { team, role } = await requireTeam(slug);
  await getQueryClient().prefetchQuery(trpc.instance.overview.queryOptions({ teamId: team.id }));
  return (
    <HydrateClient>
      <TeamRequests teamId={team.id} isAdmin={isTeamAdminRole(role)} />
    </HydrateClient>
  );
}
