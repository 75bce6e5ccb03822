import { notFound } from "next/navigation";
import { HydrateClient, getQueryClient, trpc } from "~/trpc/server";
import { requireTeam } from "~/server/page-auth";
import { ApprovalView } from "./approval-view";

/** The page an MCP client sends its member to when a call is held, and where an approver decides it. */
export default async function ApprovalPage({ params }: { params: Promise<{ slug: string; id: string }> }) {
  const { slug, id } = await params;
  const { team } = await requireTeam(slug);
  const qc = getQueryClient();
  const approval = trpc.approvals.get.queryOptions({ teamId: team.id, approvalId: id });
  await qc.prefetchQuery(approval);
  const failed = qc.getQueryState(approval.queryKey)?.error as { code?: string } | null | undefined;
  if (failed?.code === "NOT_FOUND" || failed?.code === "BAD_REQUEST") notFound();
  return (
    <HydrateClient>
      <ApprovalView teamId={team.id} slug={team.slug} approvalId={id} />
    </HydrateClient>
  );
}
