import { canTransition, type InstanceStatus } from "@switchboard/core/status";
import type { DbTx, Tx } from "../client";
import type { Prisma } from "../generated/prisma/client";
import { isUniqueViolation } from "../errors";
import { pageQuery, toPage } from "../pagination";
import type { StoredValue } from "./installation";
import type { Cipher } from "../crypto";
import type { InstanceEventType } from "@switchboard/core/events";

/** The ids every event about an instance carries, plus its status. */
export interface InstanceRef {
  id: string;
  installationId: string;
  userId: string;
  teamId: string;
  status: InstanceStatus;
}

const refSelect = {
  id: true,
  installationId: true,
  userId: true,
  status: true,
  installation: { select: { teamId: true } },
} as const;

function toRef(row: {
  id: string;
  installationId: string;
  userId: string;
  status: InstanceStatus;
  installation: { teamId: string };
}): InstanceRef {
  return {
    id: row.id,
    installationId: row.installationId,
    userId: row.userId,
    status: row.status,
    teamId: row.installation.teamId,
  };
}

export async function getInstanceRef(db: DbTx, instanceId: string): Promise<InstanceRef | null> {
  const row = await db.instance.findUnique({ where: { id: instanceId }, select: refSelect });
  return row ? toRef(row) : null;
}

/** The instance's state as the worker's processors need it (reconnect, health and crash bookkeeping). */
export async function getInstanceState(db: DbTx, instanceId: string) {
  const row = await db.instance.findUnique({
    where: { id: instanceId },
    select: {
      ...refSelect,
      statusMessage: true,
      reconnectAttempt: true,
      nextRetryAt: true,
      lastError: true,
      lastReconnectEventAt: true,
      healthConsecutiveFailures: true,
      healthDegraded: true,
      crashHistory: true,
      capabilities: true,
      discoveredAt: true,
      statusChangedAt: true,
      installation: { select: { teamId: true, slug: true, template: { select: { transport: true } } } },
    },
  });
  if (!row) return null;
  return {
    ...toRef(row),
    slug: row.installation.slug,
    transport: row.installation.template.transport,
    statusMessage: row.statusMessage,
    reconnectAttempt: row.reconnectAttempt,
    nextRetryAt: row.nextRetryAt,
    lastError: row.lastError,
    lastReconnectEventAt: row.lastReconnectEventAt,
    healthConsecutiveFailures: row.healthConsecutiveFailures,
    healthDegraded: row.healthDegraded,
    crashHistory: row.crashHistory,
    capabilities: row.capabilities,
    discoveredAt: row.discoveredAt,
    statusChangedAt: row.statusChangedAt,
  };
}

export type InstanceState = NonNullable<Awaited<ReturnType<typeof getInstanceState>>>;

/**
 * Everything needed to resolve the launch of an instance: the template with its fields, the team's values and
 * the member's values. Secret values come back as stored (encrypted); the caller decrypts them.
 */
export async function getInstanceLaunchContext(db: DbTx, instanceId: string) {
  return db.instance.findUnique({
    where: { id: instanceId },
    select: {
      id: true,
      userId: true,
      status: true,
      values: { select: { key: true, value: true, encrypted: true } },
      installation: {
        select: {
          id: true,
          teamId: true,
          slug: true,
          name: true,
          sandbox: true,
          values: { select: { key: true, value: true, encrypted: true } },
          template: {
            select: {
              transport: true,
              command: true,
              args: true,
              url: true,
              fields: { orderBy: { position: "asc" } },
            },
          },
        },
      },
    },
  });
}

export type InstanceLaunchContext = NonNullable<Awaited<ReturnType<typeof getInstanceLaunchContext>>>;

export type TransitionOutcome =
  | { outcome: "changed"; ref: InstanceRef; from: InstanceStatus; to: InstanceStatus; at: Date }
  | { outcome: "unchanged"; ref: InstanceRef }
  | { outcome: "illegal"; ref: InstanceRef; from: InstanceStatus; to: InstanceStatus }
  | { outcome: "missing" };

/**
 * Moves an instance to `to` if the status table allows it from its current status (and, with `onlyFrom`,
 * only from those statuses), recording `statusChangedAt` and a status_changed event in the same transaction.
 * The write is a compare-and-set on the status read, so a concurrent writer (the console setting
 * `restarting`) is never silently overwritten: the loser sees `illegal` or `unchanged` on a re-read.
 */
/** The other columns a status transition may write with the status (retry schedule, last error, ...). */
export type InstanceStatusData = Prisma.InstanceUpdateManyMutationInput;

export async function transitionInstanceStatus(
  db: Tx,
  input: {
    instanceId: string;
    to: InstanceStatus;
    at: Date;
    message?: string | null;
    /** The raw text behind the message (bounded by the caller), kept in the event for admins. */
    detail?: string | null;
    onlyFrom?: readonly InstanceStatus[];
    /** Extra columns written with the status (e.g. reset reconnect counters on online). */
    data?: InstanceStatusData;
  },
): Promise<TransitionOutcome> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const result = await db.$transaction(async (tx): Promise<TransitionOutcome | "retry"> => {
      const row = await tx.instance.findUnique({ where: { id: input.instanceId }, select: refSelect });
      if (!row) return { outcome: "missing" };
      const ref = toRef(row);
      const from = ref.status;
      if (from === input.to) return { outcome: "unchanged", ref };
      if (!canTransition(from, input.to) || (input.onlyFrom && !input.onlyFrom.includes(from))) {
        return { outcome: "illegal", ref, from, to: input.to };
      }
      const updated = await tx.instance.updateMany({
        where: { id: input.instanceId, status: from },
        data: { ...input.data, status: input.to, statusMessage: input.message ?? null, statusChangedAt: input.at },
      });
      if (updated.count === 0) return "retry";
      const payload: Record<string, unknown> = { from, to: input.to };
      if (input.message) payload.message = input.message;
      if (input.detail) payload.detail = input.detail;
      await tx.instanceEvent.create({
        data: {
          instanceId: input.instanceId,
          type: "status_changed",
          payload: payload as Prisma.InputJsonValue,
          createdAt: input.at,
        },
      });
      return { outcome: "changed", ref: { ...ref, status: input.to }, from, to: input.to, at: input.at };
    });
    if (result !== "retry") return result;
  }
  const ref = await getInstanceRef(db as unknown as DbTx, input.instanceId);
  return ref ? { outcome: "unchanged", ref } : { outcome: "missing" };
}

export async function updateInstance(
  db: DbTx,
  instanceId: string,
  data: Prisma.InstanceUpdateManyMutationInput,
): Promise<boolean> {
  const result = await db.instance.updateMany({ where: { id: instanceId }, data });
  return result.count > 0;
}

/** Reconnect bookkeeping shown while an instance waits: the attempt number, when it runs, the last error. */
export async function recordReconnectScheduled(
  db: DbTx,
  input: { instanceId: string; attempt: number; nextRetryAt: Date; lastError: string; eventEmittedAt?: Date },
): Promise<boolean> {
  return updateInstance(db, input.instanceId, {
    reconnectAttempt: input.attempt,
    nextRetryAt: input.nextRetryAt,
    lastError: input.lastError,
    ...(input.eventEmittedAt ? { lastReconnectEventAt: input.eventEmittedAt } : {}),
  });
}

export const RECONNECT_RESET: Prisma.InstanceUpdateManyMutationInput = Object.freeze({
  reconnectAttempt: 0,
  nextRetryAt: null,
  lastReconnectEventAt: null,
});

/**
 * One health check's result, written only while the row still holds the counter and flag the check read (`from`).
 * Checks of one instance overlap (one slower than the interval, a second worker) and a reconnect resets the
 * state meanwhile: a result folded into a state that has moved since would count one failure twice, set or
 * clear the degraded flag again, and report the same degraded or restored twice. False: nothing was written.
 */
export async function recordHealthCheck(
  db: DbTx,
  input: {
    instanceId: string;
    ok: boolean;
    from: { consecutiveFailures: number; degraded: boolean };
    consecutiveFailures: number;
    degraded: boolean;
    at: Date;
  },
): Promise<boolean> {
  const result = await db.instance.updateMany({
    where: {
      id: input.instanceId,
      healthConsecutiveFailures: input.from.consecutiveFailures,
      healthDegraded: input.from.degraded,
    },
    data: {
      healthConsecutiveFailures: input.consecutiveFailures,
      healthDegraded: input.degraded,
      lastHealthCheckAt: input.at,
      ...(input.ok ? { lastHealthyAt: input.at } : {}),
    },
  });
  return result.count > 0;
}

/** Ids and statuses in pages (reconciliation walks every instance without loading them all at once). */
export async function listInstanceRefsByStatus(
  db: DbTx,
  input: { statuses: readonly InstanceStatus[]; afterId?: string; take?: number },
): Promise<InstanceRef[]> {
  const rows = await db.instance.findMany({
    where: { status: { in: [...input.statuses] }, ...(input.afterId ? { id: { gt: input.afterId } } : {}) },
    orderBy: { id: "asc" },
    take: input.take ?? 500,
    select: refSelect,
  });
  return rows.map(toRef);
}

export async function listInstanceRefsOfInstallation(db: DbTx, installationId: string): Promise<InstanceRef[]> {
  const rows = await db.instance.findMany({ where: { installationId }, select: refSelect, orderBy: { id: "asc" } });
  return rows.map(toRef);
}

export async function listInstanceRefsOfMember(
  db: DbTx,
  input: { teamId: string; userId: string },
): Promise<InstanceRef[]> {
  const rows = await db.instance.findMany({
    where: { userId: input.userId, installation: { teamId: input.teamId } },
    select: refSelect,
    orderBy: { id: "asc" },
  });
  return rows.map(toRef);
}

/**
 * What a status cell shows: status, message, retry bookkeeping, health, the catalogue size and the protocol
 * revision the upstream speaks (from its latest discovery).
 */
export const instanceCellSelect = {
  id: true,
  installationId: true,
  userId: true,
  status: true,
  statusMessage: true,
  statusChangedAt: true,
  reconnectAttempt: true,
  nextRetryAt: true,
  lastError: true,
  healthDegraded: true,
  toolCount: true,
  totalTokens: true,
  discoveredAt: true,
  protocolVersion: true,
} as const;

/**
 * The team's installations (columns) and members (rows, paginated) with the instances where they meet.
 * `userId` narrows the rows to one member (a member sees their own row only).
 */
export async function loadTeamMatrix(
  db: DbTx,
  input: {
    teamId: string;
    userId?: string;
    statuses?: readonly InstanceStatus[];
    search?: string;
    cursor?: string | null;
    limit: number;
  },
) {
  // A status filter keeps the members with such an instance (rows, not blank cells); search matches name or email.
  const rowFilter = {
    ...(input.statuses?.length
      ? {
          user: {
            instances: { some: { status: { in: [...input.statuses] }, installation: { teamId: input.teamId } } },
          },
        }
      : {}),
    ...(input.search
      ? {
          AND: [
            {
              user: {
                OR: [
                  { name: { contains: input.search, mode: "insensitive" as const } },
                  { email: { contains: input.search, mode: "insensitive" as const } },
                ],
              },
            },
          ],
        }
      : {}),
  };
  const [installations, memberships, memberCount] = await Promise.all([
    db.installation.findMany({
      where: { teamId: input.teamId },
      select: { id: true, slug: true, name: true },
      orderBy: [{ name: "asc" }, { id: "asc" }],
      take: 200,
    }),
    db.membership.findMany({
      where: { teamId: input.teamId, ...(input.userId ? { userId: input.userId } : {}), ...rowFilter },
      select: { id: true, role: true, user: { select: { id: true, name: true, email: true } } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      ...pageQuery(input),
    }),
    db.membership.count({ where: { teamId: input.teamId } }),
  ]);
  const { items: rows, nextCursor } = toPage(memberships, input.limit);
  const instances = await db.instance.findMany({
    where: {
      installation: { teamId: input.teamId },
      userId: { in: rows.map((m) => m.user.id) },
      ...(input.statuses?.length ? { status: { in: [...input.statuses] } } : {}),
    },
    select: instanceCellSelect,
  });
  return { installations, rows, instances, memberCount, nextCursor };
}

/** Instances of one installation with their members, paginated by instance id. */
export async function listInstancesOfInstallation(
  db: DbTx,
  input: { installationId: string; userId?: string; cursor?: string | null; limit: number },
) {
  const rows = await db.instance.findMany({
    where: { installationId: input.installationId, ...(input.userId ? { userId: input.userId } : {}) },
    select: { ...instanceCellSelect, user: { select: { id: true, name: true, email: true } } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    ...pageQuery(input),
  });
  return toPage(rows, input.limit);
}

/** An instance inside the team, with what authorisation needs (owner) and what the pages show. */
export async function findTeamInstance(db: DbTx, { teamId, instanceId }: { teamId: string; instanceId: string }) {
  return db.instance.findFirst({
    where: { id: instanceId, installation: { teamId } },
    select: {
      ...instanceCellSelect,
      stderrTail: true,
      installation: {
        select: {
          id: true,
          slug: true,
          name: true,
          teamId: true,
          template: { select: { transport: true, oauth: true } },
        },
      },
    },
  });
}

/** The member's instances in a team with the template fields and their own stored values (secrets sealed). */
export async function listMemberInstances(
  db: DbTx,
  input: { teamId: string; userId: string; cursor?: string | null; limit: number },
) {
  const rows = await db.instance.findMany({
    where: { userId: input.userId, installation: { teamId: input.teamId } },
    select: {
      ...instanceCellSelect,
      values: { select: { key: true, value: true, encrypted: true } },
      installation: {
        select: {
          id: true,
          slug: true,
          name: true,
          template: {
            select: { transport: true, oauth: true, fields: { where: { tier: "user" }, orderBy: { position: "asc" } } },
          },
        },
      },
    },
    orderBy: [{ installation: { name: "asc" } }, { id: "asc" }],
    ...pageQuery(input),
  });
  return toPage(rows, input.limit);
}

/** The member's own instance with the template's member fields and stored values, for saving the form. */
export async function findMemberInstanceConfig(
  db: DbTx,
  { teamId, userId, instanceId }: { teamId: string; userId: string; instanceId: string },
) {
  return db.instance.findFirst({
    where: { id: instanceId, userId, installation: { teamId } },
    select: {
      id: true,
      installationId: true,
      values: { select: { key: true, value: true, encrypted: true } },
      installation: {
        select: { template: { select: { fields: { where: { tier: "user" }, orderBy: { position: "asc" } } } } },
      },
    },
  });
}

export async function writeInstanceValues(
  db: Tx,
  input: { instanceId: string; upserts: StoredValue[]; removals: string[] },
) {
  await db.$transaction(async (tx) => {
    if (input.removals.length > 0) {
      await tx.instanceConfigValue.deleteMany({ where: { instanceId: input.instanceId, key: { in: input.removals } } });
    }
    for (const v of input.upserts) {
      await tx.instanceConfigValue.upsert({
        where: { instanceId_key: { instanceId: input.instanceId, key: v.key } },
        create: { instanceId: input.instanceId, ...v },
        update: { value: v.value, encrypted: v.encrypted },
      });
    }
  });
}

/** What one health check needs to know about an instance; nothing else is read on the health path. */
export interface HealthState {
  id: string;
  installationId: string;
  userId: string;
  teamId: string;
  status: InstanceStatus;
  transport: string;
  healthConsecutiveFailures: number;
  healthDegraded: boolean;
  lastHealthCheckAt: Date | null;
}

/**
 * Health state of many instances in one query (the worker batches the checks that run at the same moment);
 * instances that do not exist are absent from the map.
 */
export async function getHealthStates(db: DbTx, instanceIds: readonly string[]): Promise<Map<string, HealthState>> {
  const rows = await db.instance.findMany({
    where: { id: { in: [...instanceIds] } },
    select: {
      id: true,
      installationId: true,
      userId: true,
      status: true,
      healthConsecutiveFailures: true,
      healthDegraded: true,
      lastHealthCheckAt: true,
      installation: { select: { teamId: true, template: { select: { transport: true } } } },
    },
  });
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        installationId: r.installationId,
        userId: r.userId,
        teamId: r.installation.teamId,
        status: r.status,
        transport: r.installation.template.transport,
        healthConsecutiveFailures: r.healthConsecutiveFailures,
        healthDegraded: r.healthDegraded,
        lastHealthCheckAt: r.lastHealthCheckAt,
      },
    ]),
  );
}

/**
 * Successful checks that changed nothing, written together: one statement for the batch. Only instances still
 * healthy are touched, so a failure recorded meanwhile is never painted over.
 */
export async function recordHealthyChecks(
  db: DbTx,
  input: { instanceIds: readonly string[]; at: Date },
): Promise<number> {
  if (input.instanceIds.length === 0) return 0;
  const result = await db.instance.updateMany({
    where: { id: { in: [...input.instanceIds] }, healthConsecutiveFailures: 0 },
    data: { lastHealthCheckAt: input.at, lastHealthyAt: input.at },
  });
  return result.count;
}

/**
 * Every secret value in scope for one instance, decrypted (in memory only, to build its `Redactor`): the
 * team-tier and member-tier values of secret fields (and any stored encrypted), the member's OAuth access and
 * refresh tokens, and the installation's OAuth client secret (pre-registered or from dynamic registration).
 * An instance that no longer exists has none.
 */
export async function loadInstanceSecretValues(db: DbTx, cipher: Cipher, instanceId: string): Promise<string[]> {
  const row = await db.instance.findUnique({
    where: { id: instanceId },
    select: {
      values: { select: { key: true, value: true, encrypted: true } },
      oauthToken: { select: { accessTokenEnc: true, refreshTokenEnc: true } },
      installation: {
        select: {
          values: { select: { key: true, value: true, encrypted: true } },
          oauthClientSecretEnc: true,
          oauthClientInfoEnc: true,
          template: { select: { fields: { where: { secret: true }, select: { key: true } } } },
        },
      },
    },
  });
  if (!row) return [];
  const secretKeys = new Set(row.installation.template.fields.map((f) => f.key));
  const out: string[] = [];
  const decrypt = (enc: string | null | undefined) => {
    if (!enc) return;
    try {
      out.push(cipher.decrypt(enc));
    } catch {
      // A value that no longer decrypts (key rotated) cannot leak in clear either.
    }
  };
  for (const v of [...row.installation.values, ...row.values]) {
    if (v.encrypted) decrypt(v.value);
    else if (secretKeys.has(v.key)) out.push(v.value);
  }
  decrypt(row.oauthToken?.accessTokenEnc);
  decrypt(row.oauthToken?.refreshTokenEnc);
  decrypt(row.installation.oauthClientSecretEnc);
  if (row.installation.oauthClientInfoEnc) {
    try {
      const info = JSON.parse(cipher.decrypt(row.installation.oauthClientInfoEnc)) as { client_secret?: unknown };
      if (typeof info.client_secret === "string") out.push(info.client_secret);
    } catch {
      // unreadable registration: nothing to add
    }
  }
  return out;
}

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

/** Every instance of the team's installations. */
export async function listInstanceRefsOfTeam(db: DbTx, { teamId }: { teamId: string }): Promise<InstanceRef[]> {
  const rows = await db.instance.findMany({
    where: { installation: { teamId } },
    select: refSelect,
    orderBy: { id: "asc" },
  });
  return rows.map(toRef);
}

/** Whether the member has an instance of this installation of the team. */
export async function memberHasInstance(
  db: DbTx,
  { teamId, userId, installationId }: { teamId: string; userId: string; installationId: string },
): Promise<boolean> {
  const row = await db.instance.findFirst({
    where: { userId, installationId, installation: { teamId } },
    select: { id: true },
  });
  return row !== null;
}

/**
 * The host uid the instance's sandboxed processes run as: the one it was given, else a free one from `pick`
 * (tried until the unique index takes it; when two launches race, the first write wins and both read it).
 * Null when the instance is gone.
 */
export async function allocateSandboxUid(
  db: DbTx,
  instanceId: string,
  pick: () => number,
  attempts = 32,
): Promise<number | null> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const row = await db.instance.findUnique({ where: { id: instanceId }, select: { sandboxUid: true } });
    if (!row) return null;
    if (row.sandboxUid !== null) return row.sandboxUid;
    const candidate = pick();
    try {
      await db.instance.updateMany({ where: { id: instanceId, sandboxUid: null }, data: { sandboxUid: candidate } });
    } catch (error) {
      // Another instance holds that uid: pick again.
      if (!isUniqueViolation(error)) throw error;
    }
  }
  throw new Error(`No free sandbox user for instance ${instanceId} after ${attempts} tries.`);
}

/** Instances by status, deployment-wide (the worker's metrics read it at each scrape: one grouped count). */
export async function countInstancesByStatus(db: DbTx): Promise<Array<[status: InstanceStatus, count: number]>> {
  const rows = await db.instance.groupBy({ by: ["status"], _count: { _all: true } });
  return rows.map((r) => [r.status as InstanceStatus, r._count._all]);
}
