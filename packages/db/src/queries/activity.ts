import type { DbTx } from "../client";

/** A roll-up row as the console reads it, with the names it shows. */
export interface ActivityRow {
  bucket: Date;
  installationId: string;
  installationName: string;
  userId: string;
  userName: string;
  method: string;
  target: string;
  calls: number;
  errors: number;
  resultBytes: number;
  resultTokens: number;
  latency: number[];
}

type RawRow = Omit<ActivityRow, "resultBytes" | "resultTokens"> & { resultBytes: bigint; resultTokens: bigint };

/**
 * The activity roll-ups of a team since a time (never the request log): minute rows (`activity_minutes`) or
 * UTC day rows (`activity_days`), for one member when `userId` is given.
 */
export async function listActivity(
  db: DbTx,
  input: { teamId: string; userId?: string; since: Date; source: "minute" | "day" },
): Promise<ActivityRow[]> {
  const table = input.source === "minute" ? "activity_minutes" : "activity_days";
  const rows = await db.$queryRawUnsafe<RawRow[]>(
    `SELECT a."bucket"::timestamp AS bucket, a."installationId", i."name" AS "installationName", a."userId",
       u."name" AS "userName", a."method", a."target", a."calls", a."errors", a."resultBytes", a."resultTokens",
       a."latency"
     FROM "${table}" a
     JOIN "installations" i ON i."id" = a."installationId"
     JOIN "users" u ON u."id" = a."userId"
     WHERE a."teamId" = $1 AND a."bucket" >= $2::timestamp AND ($3::text IS NULL OR a."userId" = $3)
     ORDER BY a."bucket"`,
    input.teamId,
    input.since,
    input.userId ?? null,
  );
  return rows.map((r) => ({ ...r, resultBytes: Number(r.resultBytes), resultTokens: Number(r.resultTokens) }));
}

/** The team's instances with their status, for "failing instances" (one member's when `userId` is given). */
export async function listInstanceStatuses(db: DbTx, input: { teamId: string; userId?: string }) {
  return db.instance.findMany({
    where: { installation: { teamId: input.teamId }, ...(input.userId ? { userId: input.userId } : {}) },
    select: { id: true, installationId: true, userId: true, status: true, statusMessage: true, statusChangedAt: true },
  });
}
