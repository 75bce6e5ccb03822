import type { DbTx } from "../client";

/** The toolset a member reaches at `/api/mcp/sets/{name}`: their own of that name, else the team's. */
export async function findToolsetForMember(db: DbTx, { teamId, userId, name }: { teamId: string; userId: string; name: string }) {
  const sets = await db.toolset.findMany({
    where: { teamId, name, OR: [{ ownerId: userId }, { ownerId: null }] },
    select: { id: true, name: true, ownerId: true, toolMode: true },
  });
  return sets.find((s) => s.ownerId === userId) ?? sets[0] ?? null;
}
