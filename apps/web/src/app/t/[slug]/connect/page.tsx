import { env } from "@switchboard/runtime/env";
import { isTeamAdminRole } from "@switchboard/core/accounts";
import { requireTeam } from "~/server/page-auth";
import { HydrateClient, getQueryClient, trpc } from "~/trpc/server";
import { ConnectView } from "./connect-view";

export default async function ConnectPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { team, role } = await requireTeam(slug);
  await getQueryClient().prefetchQuery(trpc.token.list.queryOptions({ teamId: team.id }));
  await getQueryClient().prefetchQuery(trpc.mcpClient.list.queryOptions({ teamId: team.id }));
  return (
    <HydrateClient>
      <ConnectView
        teamId={team.id}
        mcpUrl={new URL("/api/mcp", env().APP_URL).toString()}
        isAdmin={isTeamAdminRole(role)}
      />
    </HydrateClient>
  );
}
