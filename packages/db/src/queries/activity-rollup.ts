import {
  ACTIVITY_ROLLUP,
  mergeHistograms,
  rollUpCalls,
  type ActivityBucket,
  type LoggedCall,
} from "@switchboard/core/activity";
import type { Db, DbTx } from "../client";

const STATE_ID = "activity";
/** Serialises roll-up runs across workers: the second one to arrive skips (the first covers its rows). */
const LOCK = "switchboard:activity-rollup";

export interface RollUpResult {
  /** Another run held the lock: this one did nothing. */
  skipped: boolean;
  /** Request-log rows written since the watermark (less the overlap) that were read. */
  newRows: number;
  minuteRows: number;
  dayRows: number;
  watermark: Date | null;
}

type Raw = Omit<LoggedCall, "bucket"> & { bucket: Date };

const UPSERT_COLUMNS = `"teamId", "bucket", "installationId", "userId", "method", "target", "calls", "errors",
  "resultBytes", "resultTokens", "latency"`;

/** Writes roll-up rows over whatever the key held: recomputed buckets replace their earlier counts. */
function upsertSql(table: "activity_minutes" | "activity_days") {
  const bucket = table === "activity_days" ? `r."bucket"::date` : `r."bucket"`;
  return `
    INSERT INTO "${table}" (${UPSERT_COLUMNS})
    SELECT r."teamId", ${bucket}, r."installationId", r."userId", r."method", r."target", r."calls", r."errors",
      r."resultBytes", r."resultTokens", ARRAY(SELECT jsonb_array_elements_text(r."latency")::int)
    FROM jsonb_to_recordset($1::jsonb) AS r("teamId" text, "bucket" timestamp, "installationId" text, "userId" text,
      "method" text, "target" text, "calls" int, "errors" int, "resultBytes" bigint, "resultTokens" bigint,
      "latency" jsonb)
    ON CONFLICT ("teamId", "bucket", "installationId", "userId", "method", "target") DO UPDATE SET
      "calls" = EXCLUDED."calls", "errors" = EXCLUDED."errors", "resultBytes" = EXCLUDED."resultBytes",
      "resultTokens" = EXCLUDED."resultTokens", "latency" = EXCLUDED."latency"`;
}

async function upsert(tx: DbTx, table: "activity_minutes" | "activity_days", rows: ActivityBucket[]) {
  for (let i = 0; i < rows.length; i += 1000) {
    await tx.$executeRawUnsafe(upsertSql(table), JSON.stringify(rows.slice(i, i + 1000)));
  }
}

const iso = (d: Date) => d.toISOString();
const dayOf = (bucket: string) => `${bucket.slice(0, 10)}T00:00:00.000Z`;

/**
 * One run of the activity roll-up. Reads the request-log rows written since the watermark (by `loggedAt`, less
 * `ACTIVITY_ROLLUP.overlapMs` for writes that committed late), then recomputes from the request log every minute
 * those rows fall in (by the call's start) for their team, and every UTC day those minutes fall in from the minute
 * rows. Recomputing and overwriting makes a run idempotent: running it twice, or over rows it has read before,
 * gives the same roll-ups. Runs are serialised by a transaction-scoped advisory lock, so two workers never
 * interleave; the second skips.
 */
export async function rollUpActivity(db: Db): Promise<RollUpResult> {
  return db.$transaction(
    async (tx) => {
      const [lock] = await tx.$queryRawUnsafe<Array<{ locked: boolean }>>(
        `SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked`,
        LOCK,
      );
      if (!lock?.locked) return { skipped: true, newRows: 0, minuteRows: 0, dayRows: 0, watermark: null };
      const [clock] = await tx.$queryRawUnsafe<Array<{ now: Date }>>(
        `SELECT (CURRENT_TIMESTAMP AT TIME ZONE 'UTC') AS now`,
      );
      const to = clock!.now;
      const state = await tx.activityRollupState.findUnique({ where: { id: STATE_ID } });
      const from = state ? new Date(state.watermark.getTime() - ACTIVITY_ROLLUP.overlapMs) : new Date(0);

      const touched = await tx.$queryRawUnsafe<Array<{ teamId: string; minute: Date; rows: bigint }>>(
        `SELECT "teamId", date_trunc('minute', "createdAt") AS minute, count(*) AS rows FROM "tool_call_logs"
         WHERE "loggedAt" > $1 AND "loggedAt" <= $2 GROUP BY 1, 2`,
        from,
        to,
      );
      const newRows = touched.reduce((sum, t) => sum + Number(t.rows), 0);

      let minutes: ActivityBucket[] = [];
      if (touched.length > 0) {
        const raw = await tx.$queryRawUnsafe<Raw[]>(
          `SELECT l."teamId", l."installationId", l."userId", l."method", l."target", l."outcome"::text AS outcome,
             l."durationMs", l."resultBytes", l."resultTokens", t.minute AS bucket
           FROM jsonb_to_recordset($1::jsonb) AS t("teamId" text, minute timestamp)
           JOIN "tool_call_logs" l ON l."teamId" = t."teamId"
             AND l."createdAt" >= t.minute AND l."createdAt" < t.minute + interval '1 minute'`,
          JSON.stringify(touched.map((t) => ({ teamId: t.teamId, minute: iso(t.minute) }))),
        );
        minutes = rollUpCalls(raw.map((r) => ({ ...r, bucket: iso(r.bucket) })));
        await upsert(tx, "activity_minutes", minutes);
      }

      // Each key of a touched day, recomputed from all of that day's minute rows.
      const dayKeys = new Map<string, ActivityBucket>();
      for (const m of minutes) dayKeys.set(keyOf({ ...m, bucket: dayOf(m.bucket) }), { ...m, bucket: dayOf(m.bucket) });
      let days: ActivityBucket[] = [];
      if (dayKeys.size > 0) {
        const rows = await tx.$queryRawUnsafe<
          Array<ActivityBucket & { day: Date; resultBytes: bigint; resultTokens: bigint }>
        >(
          `SELECT m."teamId", k.day, m."installationId", m."userId", m."method", m."target", m."calls", m."errors",
             m."resultBytes", m."resultTokens", m."latency"
           FROM jsonb_to_recordset($1::jsonb) AS k("teamId" text, day timestamp, "installationId" text,
             "userId" text, "method" text, "target" text)
           JOIN "activity_minutes" m ON m."teamId" = k."teamId" AND m."installationId" = k."installationId"
             AND m."userId" = k."userId" AND m."method" = k."method" AND m."target" = k."target"
             AND m."bucket" >= k.day AND m."bucket" < k.day + interval '1 day'`,
          JSON.stringify([...dayKeys.values()].map((k) => ({ ...k, day: k.bucket }))),
        );
        days = mergeBuckets(
          rows.map((r) => ({
            ...r,
            bucket: iso(r.day),
            resultBytes: Number(r.resultBytes),
            resultTokens: Number(r.resultTokens),
          })),
        );
        await upsert(tx, "activity_days", days);
      }

      await tx.activityRollupState.upsert({
        where: { id: STATE_ID },
        create: { id: STATE_ID, watermark: to },
        update: { watermark: to },
      });
      return { skipped: false, newRows, minuteRows: minutes.length, dayRows: days.length, watermark: to };
    },
    { timeout: 60_000 },
  );
}

function keyOf(b: Pick<ActivityBucket, "teamId" | "bucket" | "installationId" | "userId" | "method" | "target">) {
  return JSON.stringify([b.teamId, b.bucket, b.installationId, b.userId, b.method, b.target]);
}

/** Adds up rows with the same key (histograms merged by core's `mergeHistograms`). */
function mergeBuckets(rows: ActivityBucket[]): ActivityBucket[] {
  const merged = new Map<string, ActivityBucket>();
  for (const r of rows) {
    const key = keyOf(r);
    const into = merged.get(key);
    if (!into) {
      merged.set(key, { ...r, latency: mergeHistograms([r.latency]) });
      continue;
    }
    into.calls += r.calls;
    into.errors += r.errors;
    into.resultBytes += r.resultBytes;
    into.resultTokens += r.resultTokens;
    into.latency = mergeHistograms([into.latency, r.latency]);
  }
  return [...merged.values()];
}

/**
 * Deletes roll-up rows older than the given times, in batches of `batch` rows so no statement holds long locks
 * (for the retention job). Minute rows are only needed for the hour and day views (`ACTIVITY_ROLLUP.minuteKeepMs`);
 * day rows as long as the team keeps its usage history. Returns how many rows of each went.
 */
export async function pruneActivity(
  db: Db | DbTx,
  opts: { minutesBefore: Date; daysBefore: Date; teamId?: string; batch?: number },
): Promise<{ minutes: number; days: number }> {
  const batch = opts.batch ?? 5000;
  const prune = async (table: "activity_minutes" | "activity_days", before: Date) => {
    let total = 0;
    for (;;) {
      const n = await db.$executeRawUnsafe(
        `DELETE FROM "${table}" WHERE ctid IN (
           SELECT ctid FROM "${table}" WHERE "bucket" < $1 AND ($2::text IS NULL OR "teamId" = $2) LIMIT $3)`,
        before,
        opts.teamId ?? null,
        batch,
      );
      total += n;
      if (n < batch) return total;
    }
  };
  return {
    minutes: await prune("activity_minutes", opts.minutesBefore),
    days: await prune("activity_days", opts.daysBefore),
  };
}
