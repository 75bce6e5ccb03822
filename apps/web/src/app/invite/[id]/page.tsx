import { HydrateClient, getQueryClient, trpc } from "~/trpc/server";
import { AcceptInvitation } from "./accept-invitation";

export const dynamic = "force-dynamic";

export default async function InvitePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await getQueryClient().prefetchQuery(trpc.me.queryOptions());
  await getQueryClient().prefetchQuery(trpc.invitation.get.queryOptions({ invitationId: id }));
  return (
    <HydrateClient>
      <AcceptInvitation invitationId={id} />
    </HydrateClient>
  );
}
