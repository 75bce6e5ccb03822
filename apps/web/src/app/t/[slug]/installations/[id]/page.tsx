import { isTeamAdminRole } from "@switchboard/core/accounts";
import { HydrateClient, getQueryClient, trpc } from "~/trpc/server";
import { requireTeam } from "~/server/page-auth";
import { InstallationView } from "./installation-view";

export default async function InstallationPage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string; id: string }>;
  searchParams: Promise<{ instance?: string }>;
}) {
  const { slug, id } = await params;
  const { instance } = await searchParams;
  const { team, role, user } = await requireTeam(slug);
  const qc = getQueryClient();
  await Promise.all([
    qc.prefetchQuery(trpc.installation.get.queryOptions({ teamId: team.id, installationId: id })),
    qc.prefetchInfiniteQuery(
      trpc.instance.ofInstallation.infiniteQueryOptions(
        { teamId: team.id, installationId: id, limit: 25 },
        { getNextPageParam: (last) => last.nextCursor },
      ),
    ),
  ]);
  return (
    <HydrateClient>
      <InstallationView
        teamId={team.id}
        slug={team.slug}
        installationId={id}
        userId={user.id}
        isAdmin={isTeamAdminRole(role)}
        initialInstanceId={instance ?? null}
      />
    </HydrateClient>
  );
}
