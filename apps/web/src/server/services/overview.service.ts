import "server-only";
import type { Db } from "@switchboard/db/client";
import { findInstallation } from "@switchboard/db/queries/installation";
import { listTeamInstanceIdsByStatus, loadTeamOverview } from "@switchboard/db/queries/team";
import { isTeamAdminRole } from "@switchboard/core/accounts";
import {
  INSTANCE_STATUSES,
  RETRYING_STATUSES,
  compareAttention,
  needsAttention,
  nextStep,
  statusLabelFor,
  type InstanceStatus,
} from "@switchboard/core/status";
import { AppError } from "../errors";
import { enqueueForceReconnect, enqueueRestart } from "@switchboard/runtime/jobs";
import type { Actor } from "./instance-access";
import { withoutRawDetail } from "./instance.service";

export type StatusCounts = Partial<Record<InstanceStatus, number>>;

const ATTENTION_LIMIT = 100;

function bump(counts: StatusCounts, status: InstanceStatus) {
  counts[status] = (counts[status] ?? 0) + 1;
}

/**
 * The team at a glance: instances by status, the ones that need someone (who and what to do, most urgent
 * first), and per-server and per-member totals. Admins see the team, a member their own instances. Searching,
 * sorting and paging the per-server and per-member rows happens in the browser: they are one row per server or
 * member, a few hundred at most.
 */
export async function overview({ db, actor }: { db: Db; actor: Actor }) {
  const admin = isTeamAdminRole(actor.role);
  const data = await loadTeamOverview(db, { teamId: actor.teamId, userId: admin ? undefined : actor.userId });
  const userById = new Map(data.memberships.map((m) => [m.user.id, m.user]));
  const installationById = new Map(data.installations.map((i) => [i.id, i]));

  const totals: StatusCounts = {};
  const byServer = new Map<string, StatusCounts>(data.installations.map((i) => [i.id, {}]));
  const byMember = new Map<string, StatusCounts>(data.memberships.map((m) => [m.user.id, {}]));
  const attention = [];
  for (const raw of data.instances) {
    const status = raw.status as InstanceStatus;
    bump(totals, status);
    const server = byServer.get(raw.installationId);
    if (server) bump(server, status);
    const member = byMember.get(raw.userId);
    if (member) bump(member, status);
    if (!needsAttention(status)) continue;
    const user = userById.get(raw.userId);
    const installation = installationById.get(raw.installationId);
    if (!user || !installation) continue;
    const own = raw.userId === actor.userId;
    const i = withoutRawDetail(actor, raw);
    attention.push({
      instanceId: i.id,
      status,
      label: statusLabelFor(status, { own }),
      statusMessage: i.statusMessage,
      statusChangedAt: i.statusChangedAt,
      reconnectAttempt: i.reconnectAttempt,
      nextRetryAt: i.nextRetryAt,
      own,
      nextStep: nextStep(status, { own, admin, member: user.name }),
      user,
      installation,
    });
  }
  // Most urgent status first, then by names, never by when the status last changed: a reconnect that fails again
  // rewrites that time, and a list ordered by it would reshuffle under the admin's pointer at every attempt.
  attention.sort(compareAttention);
  // The most urgent ATTENTION_LIMIT of each status, not of all: the overview's status filter narrows this list
  // in the browser, and "waiting for settings" must still show its instances when failing ones fill a page.
  const listed = new Map<InstanceStatus, number>();
  const kept = attention.filter((a) => {
    const n = (listed.get(a.status) ?? 0) + 1;
    listed.set(a.status, n);
    return n <= ATTENTION_LIMIT;
  });

  return {
    isAdmin: admin,
    memberCount: data.memberCount,
    instanceCount: data.instances.length,
    totals,
    failingCount: RETRYING_STATUSES.reduce((n, s) => n + (totals[s] ?? 0), 0),
    stoppedCount: totals.permanently_failed ?? 0,
    attentionCount: attention.length,
    attention: kept,
    servers: data.installations.map((i) => ({ ...i, counts: byServer.get(i.id) ?? {} })),
    members: data.memberships.map((m) => ({
      membershipId: m.id,
      role: m.role,
      joinedAt: m.createdAt,
      user: m.user,
      counts: byMember.get(m.user.id) ?? {},
    })),
    statuses: INSTANCE_STATUSES.filter((s) => (totals[s] ?? 0) > 0),
  };
}

/**
 * An admin's "Reconnect all failing": every retrying (offline or error) instance of the team (or of one installation)
 * tries at once; the outcomes arrive as live events. Answers how many were asked.
 */
export async function reconnectFailing({
  db,
  actor,
  installationId,
}: {
  db: Db;
  actor: Actor;
  installationId?: string;
}) {
  if (!isTeamAdminRole(actor.role))
    throw new AppError("FORBIDDEN", "Only team owners and admins can reconnect every failing server.");
  await requireOwnInstallation(db, actor, installationId);
  const ids = await listTeamInstanceIdsByStatus(db, {
    teamId: actor.teamId,
    statuses: RETRYING_STATUSES,
    installationId,
  });
  for (const instanceId of ids) await enqueueForceReconnect({ instanceId, requestedBy: actor.userId });
  return { count: ids.length };
}

/** An admin's "Restart all stopped": every instance stopped after repeated crashes starts again. */
export async function restartStopped({ db, actor, installationId }: { db: Db; actor: Actor; installationId?: string }) {
  if (!isTeamAdminRole(actor.role))
    throw new AppError("FORBIDDEN", "Only team owners and admins can restart stopped servers.");
  await requireOwnInstallation(db, actor, installationId);
  const ids = await listTeamInstanceIdsByStatus(db, {
    teamId: actor.teamId,
    statuses: ["permanently_failed"],
    installationId,
  });
  for (const instanceId of ids) await enqueueRestart({ instanceId, requestedBy: actor.userId });
  return { count: ids.length };
}

async function requireOwnInstallation(db: Db, actor: Actor, installationId: string | undefined) {
  if (installationId && !(await findInstallation(db, { teamId: actor.teamId, installationId })))
    throw new AppError("NOT_FOUND", "Installed server not found.");
}
