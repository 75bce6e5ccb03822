import { isTeamAdminRole } from "@switchboard/core/accounts";
import { HydrateClient, getQueryClient, trpc } from "~/trpc/server";
import { requireTeam } from "~/server/page-auth";
import { TeamOverview } from "./overview/team-overview";

export default async function TeamOverviewPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { team, role, user } = await requireTeam(slug);
  await getQueryClient().prefetchQuery(trpc.instance.overview.queryOptions({ teamId: team.id }));
  return (
    <HydrateClient>
      <TeamOverview
        teamId={team.id}
        teamName={team.name}
        slug={team.slug}
        isAdmin={isTeamAdminRole(role)}
        viewerId={user.id}
      />
    </HydrateClient>
  );
}
