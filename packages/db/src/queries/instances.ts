import { canTransition, type InstanceStatus } from "@switchboard/core/status";
import type { DbTx, Tx } from "../client";
import type { Prisma } from "../generated/prisma/client";

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
    data?: Prisma.InstanceUpdateManyMutationInput;
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

export async function recordHealthCheck(
  db: DbTx,
  input: { instanceId: string; ok: boolean; consecutiveFailures: number; degraded: boolean; at: Date },
): Promise<boolean> {
  return updateInstance(db, input.instanceId, {
    healthConsecutiveFailures: input.consecutiveFailures,
    healthDegraded: input.degraded,
    lastHealthCheckAt: input.at,
    ...(input.ok ? { lastHealthyAt: input.at } : {}),
  });
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
