import {
  memberQuotaCounters,
  toolQuotaProblems,
  type QuotaCounts,
  type QuotaSubject,
  type QuotaWindow,
  type ToolQuota,
} from "@switchboard/core/governance";
import type { Db } from "@switchboard/db/client";
import {
  listQuotaRefusals,
  listTeamToolQuotas,
  memberQuotaScope,
  QuotaInstallationNotFound,
  replaceTeamToolQuotas,
} from "@switchboard/db/queries/quota";
import { readQuotaUsage } from "../quota/usage-reader";
import { AppError } from "../errors";
import type { Actor } from "./actor";

/**
 * A team's quotas on tool calls (the rule: core governance `quotaCounters`). The gateway reads them within a
 * few seconds of a change (`QUOTA_SETTINGS_TTL_MS`), so nothing needs to be announced.
 */
export async function listQuotas({ db, actor }: { db: Db; actor: Actor }): Promise<ToolQuota[]> {
  return listTeamToolQuotas(db, { teamId: actor.teamId });
}

/** Replaces the team's limits; a limit with the id of one kept keeps its counts. */
export async function setQuotas({
  db,
  actor,
  quotas,
}: {
  db: Db;
  actor: Actor;
  quotas: ReadonlyArray<Omit<ToolQuota, "id"> & { id?: string }>;
}): Promise<ToolQuota[]> {
  const problem = quotas.flatMap((q) => toolQuotaProblems(q))[0];
  if (problem) throw new AppError("INVALID_INPUT", problem);
  try {
    return await replaceTeamToolQuotas(db, { teamId: actor.teamId, quotas });
  } catch (err) {
    // Another team's installation is as unknown as one that does not exist.
    if (err instanceof QuotaInstallationNotFound)
      throw new AppError("NOT_FOUND", "That server is not installed in this team.", { cause: err });
    throw err;
  }
}

/** One limit as it applies to the member reading it: what it counts, for whom, used so far and when it resets. */
export interface MyQuota {
  quotaId: string;
  subject: QuotaSubject;
  window: QuotaWindow;
  counts: QuotaCounts;
  limit: number;
  used: number;
  resetAt: string | null;
  installationId: string | null;
  installationName: string | null;
  toolName: string | null;
  tokenName: string | null;
}

/**
 * The member's remaining quota (My servers): every limit that applies to them, to their tokens, to the team's
 * installations and their tools, with the counts the gateway keeps in Redis. Only their own: nothing here names
 * another member.
 */
export async function myQuotas({ db, actor }: { db: Db; actor: Actor }): Promise<MyQuota[]> {
  const quotas = await listTeamToolQuotas(db, { teamId: actor.teamId });
  if (quotas.length === 0) return [];
  const scope = await memberQuotaScope(db, { teamId: actor.teamId, userId: actor.userId });
  const counters = memberQuotaCounters(quotas, {
    teamId: actor.teamId,
    userId: actor.userId,
    tokenIds: scope.tokens.map((t) => t.id),
    installationIds: scope.installations.map((i) => i.id),
  });
  const usage = await readQuotaUsage(counters);
  const installationName = new Map(scope.installations.map((i) => [i.id, i.name]));
  const tokenName = new Map(scope.tokens.map((t) => [t.id, t.name]));
  return counters.map((c, i) => ({
    quotaId: c.quotaId,
    subject: c.subject,
    window: c.window,
    counts: c.counts,
    limit: c.limit,
    used: usage[i]!.used,
    resetAt: usage[i]!.resetAt,
    installationId: c.installationId,
    installationName: c.installationId ? (installationName.get(c.installationId) ?? null) : null,
    toolName: c.toolName,
    tokenName: c.tokenId ? (tokenName.get(c.tokenId) ?? null) : null,
  }));
}

/** Recent quota refusals (admins): who, which limit (the sentence the client read), when; newest first. */
export async function quotaRefusals({
  db,
  actor,
  installationId,
  cursor,
  limit,
}: {
  db: Db;
  actor: Actor;
  installationId?: string;
  cursor?: string | null;
  limit: number;
}) {
  const page = await listQuotaRefusals(db, { teamId: actor.teamId, installationId, cursor, limit });
  return {
    items: page.items.map((r) => ({
      id: r.id,
      at: r.createdAt.toISOString(),
      who: r.user.name && r.user.email ? `${r.user.name} <${r.user.email}>` : (r.user.email ?? r.user.name ?? ""),
      installationId: r.installation.id,
      installationName: r.installation.name,
      tool: r.target,
      message: r.errorMessage ?? "",
    })),
    nextCursor: page.nextCursor,
  };
}
