import type { InstanceEventType } from "@switchboard/core/events";
import type { DbTx } from "../client";
import type { Prisma } from "../generated/prisma/client";

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
