import { notFound } from "next/navigation";
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
  const installation = trpc.installation.get.queryOptions({ teamId: team.id, installationId: id });
  await Promise.all([
    qc.prefetchQuery(installation),
    qc.prefetchInfiniteQuery(
      trpc.instance.ofInstallation.infiniteQueryOptions(
        { teamId: team.id, installationId: id, limit: 25 },
        { getNextPageParam: (last) => last.nextCursor },
      ),
    ),
  ]);
  // A stale or mangled link (a removed server, another team's id) answers 404 with the team's not-found page at once,
  // instead of a page that loads and then fetches the same refusal again from the browser.
  const failed = qc.getQueryState(installation.queryKey)?.error as { code?: string } | null | undefined;
  if (failed?.code === "NOT_FOUND" || failed?.code === "BAD_REQUEST") notFound();
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
