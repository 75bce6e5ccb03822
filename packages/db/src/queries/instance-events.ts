import type { InstanceEventType } from "@switchboard/core/events";
import type { DbTx } from "../client";
import type { Prisma } from "../generated/prisma/client";
import { type PageArgs, pageQuery, toPage } from "../pagination";

/** An instance's event log: the worker and the console append, tests and the console's timeline read. */

export async function insertInstanceEvent(
  db: DbTx,
  input: { instanceId: string; type: InstanceEventType; payload: Record<string, unknown>; at: Date },
) {
  return db.instanceEvent.create({
    data: {
      instanceId: input.instanceId,
      type: input.type,
      payload: input.payload as Prisma.InputJsonValue,
      createdAt: input.at,
    },
  });
}

/** Newest last, so a test or the console reads them in the order they happened. */
export async function listInstanceEvents(
  db: DbTx,
  input: { instanceId: string; types?: readonly InstanceEventType[]; limit?: number },
) {
  const rows = await db.instanceEvent.findMany({
    where: { instanceId: input.instanceId, ...(input.types ? { type: { in: [...input.types] } } : {}) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit ?? 200,
  });
  return rows.reverse();
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
