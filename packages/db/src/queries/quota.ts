import { QUOTA_REFUSAL_PREFIX, type ToolQuota } from "@switchboard/core/governance";
import type { DbTx, Tx } from "../client";

const SELECT = {
  id: true,
  installationId: true,
  toolName: true,
  subject: true,
  window: true,
  max: true,
  writeMax: true,
} as const;

/** A team's limits on tool calls, oldest first (the order the route checks them and reports the first refusal). */
export async function listTeamToolQuotas(db: DbTx, { teamId }: { teamId: string }): Promise<ToolQuota[]> {
  return db.toolQuota.findMany({ where: { teamId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: SELECT });
}

export class QuotaInstallationNotFound extends Error {
  constructor(readonly installationId: string) {
    super(`No installation ${installationId} in this team`);
  }
}

/**
 * Replaces a team's limits with `quotas` (already checked with core `toolQuotaProblems`), in one transaction: an
 * installation named must be the team's (QuotaInstallationNotFound otherwise). Limits kept (same id) keep their
 * counts, since the route keys its counters on the limit's id.
 */
export async function replaceTeamToolQuotas(
  db: Tx,
  { teamId, quotas }: { teamId: string; quotas: ReadonlyArray<Omit<ToolQuota, "id"> & { id?: string }> },
): Promise<ToolQuota[]> {
  return db.$transaction(async (tx) => {
    const named = [...new Set(quotas.flatMap((q) => (q.installationId ? [q.installationId] : [])))];
    const found = await tx.installation.findMany({ where: { teamId, id: { in: named } }, select: { id: true } });
    const missing = named.find((id) => !found.some((f) => f.id === id));
    if (missing) throw new QuotaInstallationNotFound(missing);
    const keep = quotas.flatMap((q) => (q.id ? [q.id] : []));
    await tx.toolQuota.deleteMany({ where: { teamId, id: { notIn: keep } } });
    for (const { id, ...data } of quotas) {
      const updated = id ? await tx.toolQuota.updateMany({ where: { id, teamId }, data }) : { count: 0 };
      if (updated.count === 0) await tx.toolQuota.create({ data: { ...data, teamId } });
    }
    return tx.toolQuota.findMany({
      where: { teamId },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: SELECT,
    });
  });
}

/** What a member's remaining quota covers: their live tokens in the team and the team's installations. */
export async function memberQuotaScope(
  db: DbTx,
  { teamId, userId }: { teamId: string; userId: string },
): Promise<{ tokens: Array<{ id: string; name: string }>; installations: Array<{ id: string; name: string }> }> {
  const [tokens, installations] = await Promise.all([
    db.personalAccessToken.findMany({
      where: { teamId, userId, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] },
      select: { id: true, name: true },
      orderBy: { createdAt: "asc" },
    }),
    db.installation.findMany({ where: { teamId }, select: { id: true, name: true }, orderBy: { name: "asc" } }),
  ]);
  return { tokens, installations };
}

/**
 * Recent quota refusals of a team (or one installation), newest first: the request log's blocked rows whose
 * message is a quota refusal (core `QUOTA_REFUSAL_PREFIX`). Keyset pages on the row id.
 */
export async function listQuotaRefusals(
  db: DbTx,
  input: { teamId: string; installationId?: string; cursor?: string | null; limit: number },
) {
  const rows = await db.toolCallLog.findMany({
    where: {
      teamId: input.teamId,
      ...(input.installationId ? { installationId: input.installationId } : {}),
      outcome: "blocked",
      errorMessage: { startsWith: QUOTA_REFUSAL_PREFIX },
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    ...(input.cursor ? { cursor: { id: input.cursor }, skip: 1 } : {}),
    select: {
      id: true,
      createdAt: true,
      target: true,
      errorMessage: true,
      user: { select: { name: true, email: true } },
      installation: { select: { id: true, name: true } },
    },
  });
  const items = rows.slice(0, input.limit);
  return { items, nextCursor: rows.length > input.limit ? (items.at(-1)?.id ?? null) : null };
}
