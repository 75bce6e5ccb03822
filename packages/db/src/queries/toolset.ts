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

/** The member's own toolsets and the team's, by name, with their tools. */
export async function listToolsetsForMember(db: DbTx, { teamId, userId }: { teamId: string; userId: string }) {
  return db.toolset.findMany({
    where: { teamId, OR: [{ ownerId: userId }, { ownerId: null }] },
    orderBy: [{ name: "asc" }],
    select: {
      id: true,
      name: true,
      description: true,
      ownerId: true,
      toolMode: true,
      updatedAt: true,
      tools: { select: { installationId: true, toolName: true } },
    },
  });
}

/** A toolset of the team with its owner and the tokens limited to it. */
export async function findTeamToolset(db: DbTx, { teamId, toolsetId }: { teamId: string; toolsetId: string }) {
  return db.toolset.findFirst({
    where: { id: toolsetId, teamId },
    select: { id: true, ownerId: true, name: true, tokens: { select: { id: true } } },
  });
}

/** Whether the owner (a member, or null for the team) already has a toolset of this name, other than `exceptId`. */
export async function toolsetNameTaken(
  db: DbTx,
  { teamId, ownerId, name, exceptId }: { teamId: string; ownerId: string | null; name: string; exceptId?: string },
) {
  const clash = await db.toolset.findFirst({
    where: { teamId, ownerId, name, ...(exceptId ? { NOT: { id: exceptId } } : {}) },
    select: { id: true },
  });
  return clash !== null;
}

export interface ToolsetWrite {
  teamId: string;
  name: string;
  description: string;
  toolMode: "all" | "router";
  ownerId: string | null;
  tools: ReadonlyArray<{ installationId: string; toolName: string }>;
}

/** Creates the toolset, or replaces an existing one's settings and tools (`id`); call it inside a transaction. */
export async function writeToolset(db: DbTx, { id, teamId, tools, ...data }: ToolsetWrite & { id?: string }) {
  const set = id
    ? await db.toolset.update({ where: { id }, data, select: { id: true } })
    : await db.toolset.create({ data: { ...data, teamId }, select: { id: true } });
  await db.toolsetTool.deleteMany({ where: { toolsetId: set.id } });
  if (tools.length > 0) await db.toolsetTool.createMany({ data: tools.map((t) => ({ toolsetId: set.id, ...t })) });
  return set;
}

/** Deletes the toolset; the tokens limited to it go with it (the schema cascades). */
export async function deleteToolset(db: DbTx, toolsetId: string) {
  await db.toolset.delete({ where: { id: toolsetId } });
}

/** A member hides one of their tools from their own clients, or shows it again. */
export async function setToolHidden(
  db: DbTx,
  {
    userId,
    installationId,
    toolName,
    hidden,
  }: { userId: string; installationId: string; toolName: string; hidden: boolean },
) {
  if (hidden) {
    await db.memberHiddenTool.upsert({
      where: { userId_installationId_toolName: { userId, installationId, toolName } },
      create: { userId, installationId, toolName },
      update: {},
    });
  } else {
    await db.memberHiddenTool.deleteMany({ where: { userId, installationId, toolName } });
  }
}

/** A toolset by id with its name, tool mode and selection (what a session limited to it serves). */
export async function findToolset(db: DbTx, toolsetId: string) {
  return db.toolset.findUnique({
    where: { id: toolsetId },
    select: {
      id: true,
      name: true,
      toolMode: true,
      tools: { select: { installationId: true, toolName: true } },
    },
  });
}
