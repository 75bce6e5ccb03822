import { requireUser } from "~/server/page-auth";
import { HydrateClient, getQueryClient, trpc } from "~/trpc/server";
import { ConsentView } from "./consent-view";

export const dynamic = "force-dynamic";

/**
 * Where Better Auth's authorization endpoint sends a member when an MCP client asks to sign in: which client,
 * which team it may reach, which tool mode. The query is the provider's signed authorization request; the page
 * keeps it in its URL, and the browser's auth client sends it back with the decision.
 */
export default async function ConsentPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const query = await searchParams;
  const search = new URLSearchParams(
    Object.entries(query).flatMap(([k, v]) =>
      Array.isArray(v) ? v.map((x) => [k, x]) : v === undefined ? [] : [[k, v]],
    ),
  );
  await requireUser(`/oauth/consent?${search.toString()}`);
  const clientId = typeof query.client_id === "string" ? query.client_id : "";
  if (clientId) await getQueryClient().prefetchQuery(trpc.mcpClient.consent.queryOptions({ clientId }));
  return (
    <HydrateClient>
      <ConsentView clientId={clientId} />
    </HydrateClient>
  );
}
