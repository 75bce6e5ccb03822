import { env } from "@switchboard/runtime/env";
import { requireTeam } from "~/server/page-auth";
import { HydrateClient, getQueryClient, trpc } from "~/trpc/server";
import { ConnectView } from "./connect-view";

export default async function ConnectPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { team } = await requireTeam(slug);
  await getQueryClient().prefetchQuery(trpc.token.list.queryOptions({ teamId: team.id }));
  return (
    <HydrateClient>
      <ConnectView teamId={team.id} mcpUrl={new URL("/api/mcp", env().APP_URL).toString()} />
    </HydrateClient>
  );
}
