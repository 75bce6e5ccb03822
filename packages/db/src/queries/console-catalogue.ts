import type { DbTx } from "../client";
import { pageQuery, toPage, type PageArgs } from "../pagination";

/** An instance's discovered tools in discovery order; the input schema is fetched on demand (toolSchema). */
export async function listInstanceTools(
  db: DbTx,
  { instanceId, search, cursor, limit }: { instanceId: string; search?: string } & PageArgs,
) {
  const contains = search ? { contains: search, mode: "insensitive" as const } : undefined;
  const rows = await db.instanceTool.findMany({
    where: {
      instanceId,
      ...(contains ? { OR: [{ name: contains }, { title: contains }, { description: contains }] } : {}),
    },
    select: { id: true, name: true, title: true, description: true, tokenCount: true },
    orderBy: [{ position: "asc" }, { id: "asc" }],
    ...pageQuery({ cursor, limit }),
  });
  return toPage(rows, limit);
}

export async function findInstanceTool(db: DbTx, { instanceId, toolId }: { instanceId: string; toolId: string }) {
  return db.instanceTool.findFirst({
    where: { id: toolId, instanceId },
    select: { id: true, name: true, inputSchema: true, outputSchema: true, annotations: true },
  });
}

export async function listInstanceResources(
  db: DbTx,
  { instanceId, cursor, limit }: { instanceId: string } & PageArgs,
) {
  const rows = await db.instanceResource.findMany({
    where: { instanceId },
    select: { id: true, uri: true, name: true, title: true, description: true, mimeType: true },
    orderBy: [{ position: "asc" }, { id: "asc" }],
    ...pageQuery({ cursor, limit }),
  });
  return toPage(rows, limit);
}

export async function listInstanceResourceTemplates(
  db: DbTx,
  { instanceId, cursor, limit }: { instanceId: string } & PageArgs,
) {
  const rows = await db.instanceResourceTemplate.findMany({
    where: { instanceId },
    select: { id: true, uriTemplate: true, name: true, title: true, description: true, mimeType: true },
    orderBy: [{ position: "asc" }, { id: "asc" }],
    ...pageQuery({ cursor, limit }),
  });
  return toPage(rows, limit);
}

/** The instance's events, newest first (a timeline reads from the top), paginated by id. */
export async function listInstanceEventsPage(
  db: DbTx,
  { instanceId, cursor, limit }: { instanceId: string } & PageArgs,
) {
  const rows = await db.instanceEvent.findMany({
    where: { instanceId },
    select: { id: true, type: true, payload: true, createdAt: true },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    ...pageQuery({ cursor, limit }),
  });
  return toPage(rows, limit);
}
