import type { DbTx } from "../client";

/** The toolset a member reaches at `/api/mcp/sets/{name}`: their own of that name, else the team's. */
export async function findToolsetForMember(
  db: DbTx,
  { teamId, userId, name }: { teamId: string; userId: string; name: string },
) {
  const sets = await db.toolset.findMany({
    where: { teamId, name, OR: [{ ownerId: userId }, { ownerId: null }] },
    select: { id: true, name: true, ownerId: true, toolMode: true },
  });
  return sets.find((s) => s.ownerId === userId) ?? sets[0] ?? null;
}

/** A toolset a member may limit a token to: their own or the team's (another member's is not theirs to use). */
export async function findToolsetOfMember(
  db: DbTx,
  { teamId, userId, toolsetId }: { teamId: string; userId: string; toolsetId: string },
) {
  return db.toolset.findFirst({
    where: { id: toolsetId, teamId, OR: [{ ownerId: userId }, { ownerId: null }] },
    select: { id: true },
  });
}
