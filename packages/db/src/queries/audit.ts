import {
  AuditChainVerifier,
  auditChainKey,
  auditRecordHash,
  AUDIT_GENESIS_HASH,
  maskForAudit,
  type AuditBreak,
  type AuditStoredRecord,
} from "@switchboard/core/audit";
import type { Db, DbTx } from "../client";
import { pageQuery, toPage } from "../pagination";

/** One change to record. `before`/`after` are masked here, whatever the caller passes. */
export interface AuditInput {
  teamId?: string | null;
  actorId?: string | null;
  actorLabel: string;
  action: string;
  targetType?: string | null;
  targetId?: string | null;
  targetLabel?: string | null;
  before?: unknown;
  after?: unknown;
  detail?: Record<string, unknown>;
  ip?: string | null;
  client?: string | null;
}

const json = (v: unknown) => (v === undefined || v === null ? undefined : (maskForAudit(v) as object));

/**
 * Appends a record to its chain. Writers of one chain queue on a transaction-scoped advisory lock, so each reads
 * the real last record and the chain never forks; other chains are not held up.
 */
export async function appendAudit(db: Db, input: AuditInput): Promise<{ id: string; seq: number; hash: string }> {
  const chain = auditChainKey(input.teamId);
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`audit:${chain}`}, 0))`;
    const last = await tx.auditEvent.findFirst({
      where: { chain },
      orderBy: { seq: "desc" },
      select: { seq: true, hash: true },
    });
    const anchor = last ? null : await tx.auditAnchor.findUnique({ where: { chain } });
    const seq = last ? last.seq + 1 : anchor ? anchor.seq + 1 : 1;
    const prevHash = last?.hash ?? anchor?.hash ?? AUDIT_GENESIS_HASH;
    // Milliseconds, as PostgreSQL's timestamp(3) keeps them, so the stored record hashes the same when read back.
    const createdAt = new Date();
    const fields = {
      chain,
      seq,
      teamId: input.teamId ?? null,
      actorId: input.actorId ?? null,
      actorLabel: input.actorLabel,
      action: input.action,
      targetType: input.targetType ?? null,
      targetId: input.targetId ?? null,
      targetLabel: input.targetLabel ?? null,
      before: json(input.before) ?? null,
      after: json(input.after) ?? null,
      detail: (maskForAudit(input.detail ?? {}) as object) ?? {},
      ip: input.ip ?? null,
      client: input.client ? input.client.slice(0, 300) : null,
      createdAt: createdAt.toISOString(),
    };
    // The hash covers the record as it will read back from jsonb (canonical, keys sorted).
    const normalised = JSON.parse(JSON.stringify(fields)) as typeof fields;
    const hash = auditRecordHash(prevHash, normalised);
    const row = await tx.auditEvent.create({
      data: {
        ...fields,
        before: fields.before ?? undefined,
        after: fields.after ?? undefined,
        createdAt,
        prevHash,
        hash,
      },
      select: { id: true },
    });
    return { id: row.id, seq, hash };
  });
}

export interface AuditFilter {
  /** One team's trail; null for the deployment's own chain; undefined (deployment owners) for every chain. */
  teamId?: string | null;
  actor?: string;
  action?: string;
  target?: string;
  from?: Date;
  to?: Date;
}

function where(f: AuditFilter) {
  const contains = (v: string) => ({ contains: v, mode: "insensitive" as const });
  return {
    ...(f.teamId !== undefined ? { chain: auditChainKey(f.teamId) } : {}),
    ...(f.actor ? { actorLabel: contains(f.actor) } : {}),
    ...(f.action ? { action: contains(f.action) } : {}),
    ...(f.target ? { OR: [{ targetLabel: contains(f.target) }, { targetId: f.target }] } : {}),
    ...(f.from || f.to ? { createdAt: { ...(f.from ? { gte: f.from } : {}), ...(f.to ? { lt: f.to } : {}) } } : {}),
  };
}

const listSelect = {
  id: true,
  chain: true,
  seq: true,
  teamId: true,
  actorId: true,
  actorLabel: true,
  action: true,
  targetType: true,
  targetId: true,
  targetLabel: true,
  before: true,
  after: true,
  detail: true,
  ip: true,
  client: true,
  createdAt: true,
  hash: true,
} as const;

/** A page of the trail, newest first. */
export async function listAudit(db: DbTx, input: AuditFilter & { cursor?: string | null; limit: number }) {
  const rows = await db.auditEvent.findMany({
    where: where(input),
    select: listSelect,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    ...pageQuery(input),
  });
  return toPage(rows, input.limit);
}

export async function countAudit(db: DbTx, filter: AuditFilter): Promise<number> {
  return db.auditEvent.count({ where: where(filter) });
}

/** Every matching record, oldest first, a batch at a time (exports). */
export async function* streamAudit(db: DbTx, filter: AuditFilter, batch = 1000) {
  let cursor: string | null = null;
  for (;;) {
    const rows: Array<Awaited<ReturnType<typeof db.auditEvent.findMany<{ select: typeof listSelect }>>>[number]> =
      await db.auditEvent.findMany({
        where: where(filter),
        select: listSelect,
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take: batch,
        ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
      });
    if (rows.length === 0) return;
    yield* rows;
    if (rows.length < batch) return;
    cursor = rows.at(-1)!.id;
  }
}

export interface AuditVerification {
  chain: string;
  /** Records checked before the first broken link (all of them when it holds). */
  checked: number;
  /** Records retention removed before the anchor the check started from. */
  pruned: number;
  broken: (AuditBreak & { action: string; createdAt: Date }) | null;
}

/** Walks one chain from its anchor in order, a page at a time, and reports its first broken link. */
export async function verifyAudit(db: DbTx, teamId: string | null, pageSize = 2000): Promise<AuditVerification> {
  const chain = auditChainKey(teamId);
  const anchor = await db.auditAnchor.findUnique({ where: { chain } });
  const verifier = new AuditChainVerifier(anchor ? { seq: anchor.seq, hash: anchor.hash } : null);
  let afterSeq = anchor?.seq ?? 0;
  for (;;) {
    const rows = await db.auditEvent.findMany({
      where: { chain, seq: { gt: afterSeq } },
      orderBy: { seq: "asc" },
      take: pageSize,
    });
    if (rows.length === 0) break;
    const records: AuditStoredRecord[] = rows.map((r) => ({
      id: r.id,
      chain: r.chain,
      seq: r.seq,
      teamId: r.teamId,
      actorId: r.actorId,
      actorLabel: r.actorLabel,
      action: r.action,
      targetType: r.targetType,
      targetId: r.targetId,
      targetLabel: r.targetLabel,
      before: r.before,
      after: r.after,
      detail: r.detail,
      ip: r.ip,
      client: r.client,
      createdAt: r.createdAt.toISOString(),
      prevHash: r.prevHash,
      hash: r.hash,
    }));
    const broken = verifier.check(records);
    if (broken) {
      const row = rows.find((r) => r.id === broken.id)!;
      return {
        chain,
        checked: verifier.checked,
        pruned: anchor?.prunedCount ?? 0,
        broken: { ...broken, action: row.action, createdAt: row.createdAt },
      };
    }
    afterSeq = rows.at(-1)!.seq;
    if (rows.length < pageSize) break;
  }
  return { chain, checked: verifier.checked, pruned: anchor?.prunedCount ?? 0, broken: null };
}

/** Every chain that has records or an anchor (the verify command walks them all). */
export async function listAuditChains(db: DbTx): Promise<string[]> {
  const rows = await db.auditEvent.findMany({ distinct: ["chain"], select: { chain: true } });
  return rows.map((r) => r.chain).sort();
}

/**
 * Retention: deletes one chain's records older than `before`, oldest first, `batch` at a time (each batch its own
 * short transaction under the chain's lock), moving the chain's anchor to the last deleted record so that what
 * remains still verifies. Returns how many it deleted.
 */
export async function pruneAudit(db: Db, teamId: string | null, before: Date, batch = 5000): Promise<number> {
  const chain = auditChainKey(teamId);
  let total = 0;
  for (;;) {
    const deleted = await db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`audit:${chain}`}, 0))`;
      const rows = await tx.auditEvent.findMany({
        where: { chain, createdAt: { lt: before } },
        orderBy: { seq: "asc" },
        take: batch,
        select: { id: true, seq: true, hash: true },
      });
      // Never the chain's newest record: the next append links to it.
      const newest = await tx.auditEvent.findFirst({
        where: { chain },
        orderBy: { seq: "desc" },
        select: { id: true },
      });
      const doomed = rows.filter((r) => r.id !== newest?.id);
      if (doomed.length === 0) return 0;
      const last = doomed.at(-1)!;
      await tx.auditEvent.deleteMany({ where: { id: { in: doomed.map((r) => r.id) } } });
      await tx.auditAnchor.upsert({
        where: { chain },
        create: { chain, seq: last.seq, hash: last.hash, prunedCount: doomed.length },
        update: { seq: last.seq, hash: last.hash, prunedCount: { increment: doomed.length } },
      });
      return doomed.length;
    });
    total += deleted;
    if (deleted < batch) return total;
  }
}

/** Deletes a team's request log rows older than `before`, `batch` at a time (each a short statement). */
export async function pruneCallLog(db: DbTx, teamId: string, before: Date, batch = 5000): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await db.$executeRaw`
      DELETE FROM tool_call_logs WHERE id IN (
        SELECT id FROM tool_call_logs WHERE "teamId" = ${teamId} AND "createdAt" < ${before} LIMIT ${batch}
      )`;
    total += n;
    if (n < batch) return total;
  }
}

/** Each team's retention settings, for the pruning job. */
export async function listRetention(db: DbTx) {
  return db.team.findMany({
    select: { id: true, requestLogRetentionDays: true, rollupRetentionDays: true, auditRetentionDays: true },
  });
}

export async function getRetention(db: DbTx, teamId: string) {
  return db.team.findUniqueOrThrow({
    where: { id: teamId },
    select: { requestLogRetentionDays: true, rollupRetentionDays: true, auditRetentionDays: true },
  });
}

export async function setRetention(
  db: DbTx,
  teamId: string,
  days: { requestLogRetentionDays: number; rollupRetentionDays: number; auditRetentionDays: number },
) {
  return db.team.update({ where: { id: teamId }, data: days, select: { id: true } });
}
