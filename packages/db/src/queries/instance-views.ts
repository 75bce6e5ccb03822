import type { InstanceStatus } from "@switchboard/core/status";
import type { DbTx, Tx } from "../client";
import { pageQuery, toPage } from "../pagination";
import type { StoredValue } from "./installation";

/** The console's read models of instances (matrix, lists, pages) and the member's own config form. */

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
