import type pg from "pg";
import { randomUUID } from "node:crypto";
import type { DbTx, Prisma } from "../client";
import { pageQuery, streamRows, toPage } from "../pagination";

export interface CallLogFilter {
  teamId: string;
  /** One installation's log; left out, the whole team's. */
  installationId?: string;
  /** Only this member's calls (a member sees their own). */
  userId?: string;
  outcome?: "success" | "tool_error" | "error" | "blocked";
  method?: string;
  /** Part of the tool, prompt or URI, as the client called it or as the upstream knows it. */
  target?: string;
  /** Calls that started at or after `from` and before `to`. */
  from?: Date;
  to?: Date;
}

function where(f: CallLogFilter) {
  return {
    teamId: f.teamId,
    ...(f.installationId ? { installationId: f.installationId } : {}),
    ...(f.userId ? { userId: f.userId } : {}),
    ...(f.outcome ? { outcome: f.outcome } : {}),
    ...(f.method ? { method: f.method } : {}),
    ...(f.target
      ? {
          OR: [
            { target: { contains: f.target, mode: "insensitive" as const } },
            { requested: { contains: f.target, mode: "insensitive" as const } },
          ],
        }
      : {}),
    ...(f.from || f.to ? { createdAt: { ...(f.from ? { gte: f.from } : {}), ...(f.to ? { lt: f.to } : {}) } } : {}),
  };
}

const listSelect = {
  id: true,
  installation: { select: { id: true, name: true, slug: true } },
  method: true,
  target: true,
  requested: true,
  outcome: true,
  durationMs: true,
  attempts: true,
  createdAt: true,
  user: { select: { id: true, name: true, email: true } },
  // Which personal token or signed-in OAuth client made the call.
  token: { select: { name: true, kind: true } },
} as const;

/** The request log of an installation, newest first, without the (possibly large) arguments. */
export async function listCallLogs(db: DbTx, input: CallLogFilter & { cursor?: string | null; limit: number }) {
  const rows = await db.toolCallLog.findMany({
    where: where(input),
    select: listSelect,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    ...pageQuery(input),
  });
  return toPage(rows, input.limit);
}

/** How many calls match the filter (the log's total, beside its first page). */
export async function countCallLogs(db: DbTx, filter: CallLogFilter) {
  return db.toolCallLog.count({ where: where(filter) });
}

/**
 * Every matching call, newest first as the log lists them, with its error message and result size, a batch at a
 * time (for the CSV export: it never holds the whole log).
 */
export function streamCallLogs(db: DbTx, filter: CallLogFilter, batch = 1000): AsyncGenerator<ExportedCallLog> {
  return streamRows(
    (page) =>
      db.toolCallLog.findMany({
        where: where(filter),
        select: exportSelect,
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        ...page,
      }),
    batch,
  );
}

const exportSelect = { ...listSelect, errorMessage: true, resultBytes: true } as const;
export type ExportedCallLog = Prisma.ToolCallLogGetPayload<{ select: typeof exportSelect }>;

/** One entry with its (already redacted) arguments and result summary. */
export async function findCallLog(db: DbTx, input: { teamId: string; callId: string; userId?: string }) {
  return db.toolCallLog.findFirst({
    where: { id: input.callId, teamId: input.teamId, ...(input.userId ? { userId: input.userId } : {}) },
    select: {
      id: true,
      installationId: true,
      method: true,
      target: true,
      requested: true,
      arguments: true,
      resultSummary: true,
      resultBytes: true,
      guardrailFindings: true,
      outcome: true,
      errorMessage: true,
      durationMs: true,
      attempts: true,
      createdAt: true,
      user: { select: { id: true, name: true, email: true } },
      // Which personal token or signed-in OAuth client made the call.
      token: { select: { name: true, kind: true } },
    },
  });
}

export interface CallLogRow {
  teamId: string;
  installationId: string;
  instanceId: string;
  userId: string;
  tokenId: string | null;
  method: string;
  target: string;
  /** What the client called (namespaced or renamed); absent in rows of callers that do not know it. */
  requested?: string | null;
  arguments: unknown;
  resultSummary: string | null;
  resultBytes: number;
  /** Estimated tokens of the result (core `estimateTokens`); 0 when absent. */
  resultTokens?: number;
  durationMs: number;
  attempts: number;
  outcome: "success" | "tool_error" | "error" | "blocked";
  errorMessage: string | null;
  /** When the call started (ISO 8601); the time of the write when absent. */
  startedAt?: string;
  /** What the guardrails found (core `GuardrailFinding[]`, never a matched value); absent when nothing was. */
  guardrailFindings?: unknown;
}

const INSERT_CALL_LOGS = `
  INSERT INTO "tool_call_logs" ("id", "teamId", "installationId", "instanceId", "userId", "tokenId", "method", "target",
    "requested", "arguments", "resultSummary", "resultBytes", "resultTokens", "durationMs", "attempts", "outcome", "errorMessage",
    "guardrailFindings", "createdAt", "loggedAt")
  SELECT r."id", r."teamId", r."installationId", r."instanceId", r."userId", r."tokenId", r."method", r."target",
    r."requested", r."arguments", r."resultSummary", r."resultBytes", COALESCE(r."resultTokens", 0), r."durationMs", r."attempts",
    r."outcome"::"CallOutcome", r."errorMessage", r."guardrailFindings",
    COALESCE(r."startedAt", CURRENT_TIMESTAMP) AT TIME ZONE 'UTC', CURRENT_TIMESTAMP AT TIME ZONE 'UTC'
  FROM jsonb_to_recordset($1::jsonb) AS r("id" text, "teamId" text, "installationId" text, "instanceId" text,
    "userId" text, "tokenId" text, "method" text, "target" text, "requested" text, "arguments" jsonb, "resultSummary" text,
    "resultBytes" integer, "resultTokens" integer, "durationMs" integer, "attempts" integer, "outcome" text, "errorMessage" text, "startedAt" timestamptz,
    "guardrailFindings" jsonb)`;

/**
 * Writes request-log rows in one statement whose only parameter is the batch as JSON: PostgreSQL unpacks it
 * with `jsonb_to_recordset`. The hosted route logs every call and passes the plain `pg` pool (`getBulkPool`):
 * through the ORM, building the statement cost more CPU in the gateway process than proxying the calls did.
 */
export async function insertCallLogs(db: DbTx | Pick<pg.Pool, "query">, rows: CallLogRow[]) {
  if (rows.length === 0) return;
  const batch = JSON.stringify(
    rows.map((row) => ({
      ...row,
      id: randomUUID(),
      requested: row.requested ?? null,
      arguments: row.arguments ?? null,
      startedAt: row.startedAt ?? null,
      guardrailFindings: row.guardrailFindings ?? null,
    })),
  );
  if ("query" in db) await db.query(INSERT_CALL_LOGS, [batch]);
  else await db.$executeRawUnsafe(INSERT_CALL_LOGS, batch);
}
