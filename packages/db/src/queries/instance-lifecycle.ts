import { canTransition, type InstanceStatus } from "@switchboard/core/status";
import type { DbTx, Tx } from "../client";
import type { Prisma } from "../generated/prisma/client";
import { isUniqueViolation } from "../errors";
import { getInstanceRef, type InstanceRef, instanceRefSelect, toInstanceRef } from "./instance";

/**
 * The worker's writes over an instance's life: the state its processors read, status transitions, reconnect and
 * health bookkeeping, and the sandbox uid a launch runs as.
 */

/** The instance's state as the worker's processors need it (reconnect, health and crash bookkeeping). */
export async function getInstanceState(db: DbTx, instanceId: string) {
  const row = await db.instance.findUnique({
    where: { id: instanceId },
    select: {
      ...instanceRefSelect,
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
    ...toInstanceRef(row),
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

export type TransitionOutcome =
  | { outcome: "changed"; ref: InstanceRef; from: InstanceStatus; to: InstanceStatus; at: Date }
  | { outcome: "unchanged"; ref: InstanceRef }
  | { outcome: "illegal"; ref: InstanceRef; from: InstanceStatus; to: InstanceStatus }
  | { outcome: "missing" };

/** The other columns a status transition may write with the status (retry schedule, last error, ...). */
export type InstanceStatusData = Prisma.InstanceUpdateManyMutationInput;

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
    data?: InstanceStatusData;
  },
): Promise<TransitionOutcome> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const result = await db.$transaction(async (tx): Promise<TransitionOutcome | "retry"> => {
      const row = await tx.instance.findUnique({ where: { id: input.instanceId }, select: instanceRefSelect });
      if (!row) return { outcome: "missing" };
      const ref = toInstanceRef(row);
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
