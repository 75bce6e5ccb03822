import type { DbTx } from "../client";

export interface CallLogFilter {
  teamId: string;
  /** One installation's log; left out, the whole team's. */
  installationId?: string;
  /** Only this member's calls (a member sees their own). */
  userId?: string;
  outcome?: "success" | "tool_error" | "error" | "blocked";
  method?: string;
  target?: string;
}

function where(f: CallLogFilter) {
  return {
    teamId: f.teamId,
    ...(f.installationId ? { installationId: f.installationId } : {}),
    ...(f.userId ? { userId: f.userId } : {}),
    ...(f.outcome ? { outcome: f.outcome } : {}),
    ...(f.method ? { method: f.method } : {}),
    ...(f.target ? { target: { contains: f.target, mode: "insensitive" as const } } : {}),
  };
}

/** The request log of an installation, newest first, without the (possibly large) arguments. */
export async function listCallLogs(db: DbTx, input: CallLogFilter & { cursor?: string | null; limit: number }) {
  const rows = await db.toolCallLog.findMany({
    where: where(input),
    select: {
      id: true,
      installation: { select: { id: true, name: true, slug: true } },
      method: true,
      target: true,
      outcome: true,
      durationMs: true,
      attempts: true,
      createdAt: true,
      user: { select: { id: true, name: true, email: true } },
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    ...(input.cursor ? { cursor: { id: input.cursor }, skip: 1 } : {}),
  });
  const items = rows.slice(0, input.limit);
  return { items, nextCursor: rows.length > input.limit ? (items.at(-1)?.id ?? null) : null };
}

/** One entry with its (already redacted) arguments and result summary. */
export async function findCallLog(db: DbTx, input: { teamId: string; callId: string; userId?: string }) {
  return db.toolCallLog.findFirst({
    where: { id: input.callId, teamId: input.teamId, ...(input.userId ? { userId: input.userId } : {}) },
    select: {
      id: true,
      installationId: true,
      method: true,
      target: true,
      arguments: true,
      resultSummary: true,
      resultBytes: true,
      outcome: true,
      errorMessage: true,
      durationMs: true,
      attempts: true,
      createdAt: true,
      user: { select: { id: true, name: true, email: true } },
    },
  });
}
