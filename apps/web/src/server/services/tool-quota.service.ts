import { toolQuotaProblems, type ToolQuota } from "@switchboard/core/governance";
import type { Db } from "@switchboard/db/client";
import { listTeamToolQuotas, QuotaInstallationNotFound, replaceTeamToolQuotas } from "@switchboard/db/queries/quota";
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
