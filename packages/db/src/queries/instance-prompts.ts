import type { DbTx } from "../client";

/** The instance's discovered prompts in discovery order, paginated by id. */
export async function listInstancePrompts(
  db: DbTx,
  { instanceId, cursor, limit }: { instanceId: string; cursor?: string | null; limit: number },
) {
  const rows = await db.instancePrompt.findMany({
    where: { instanceId },
    select: { id: true, name: true, title: true, description: true, arguments: true },
    orderBy: [{ position: "asc" }, { id: "asc" }],
    take: limit + 1,
    ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
  });
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? (items.at(-1)?.id ?? null) : null };
}
