import type { InstanceStatus } from "@switchboard/core/status";
import type { DbTx, Tx } from "../client";
import { pageQuery, toPage } from "../pagination";
import type { Prisma } from "../generated/prisma/client";

/** An installation with what provisioning needs: template fields, team values, members and their instances. */
export async function getInstallationForProvisioning(db: DbTx, installationId: string) {
  return db.installation.findUnique({
    where: { id: installationId },
    select: {
      id: true,
      teamId: true,
      slug: true,
      values: { select: { key: true, value: true, encrypted: true } },
      template: { select: { transport: true, fields: { orderBy: { position: "asc" } } } },
      team: { select: { memberships: { select: { userId: true } } } },
      instances: {
        select: {
          id: true,
          userId: true,
          status: true,
          values: { select: { key: true, value: true, encrypted: true } },
        },
      },
    },
  });
}

export type InstallationForProvisioning = NonNullable<Awaited<ReturnType<typeof getInstallationForProvisioning>>>;

/**
 * Creates a member's instance with its first status and a status_changed event (from null). Returns null when
 * the member already has one (idempotent: the trigger may run twice).
 */
export async function createInstance(
  db: Tx,
  input: { installationId: string; userId: string; status: InstanceStatus; message?: string; at: Date },
) {
  return db.$transaction(async (tx) => {
    const existing = await tx.instance.findUnique({
      where: { installationId_userId: { installationId: input.installationId, userId: input.userId } },
      select: { id: true },
    });
    if (existing) return null;
    const instance = await tx.instance.create({
      data: {
        installationId: input.installationId,
        userId: input.userId,
        status: input.status,
        statusMessage: input.message ?? null,
        statusChangedAt: input.at,
      },
      select: {
        id: true,
        installationId: true,
        userId: true,
        status: true,
        installation: { select: { teamId: true } },
      },
    });
    await tx.instanceEvent.create({
      data: {
        instanceId: instance.id,
        type: "status_changed",
        payload: { from: null, to: input.status, ...(input.message ? { message: input.message } : {}) },
        createdAt: input.at,
      },
    });
    return {
      id: instance.id,
      installationId: instance.installationId,
      userId: instance.userId,
      status: instance.status,
      teamId: instance.installation.teamId,
    };
  });
}

/** A stored configuration value as the console writes it: already sealed when the field is secret. */
export interface StoredValue {
  key: string;
  value: string;
  encrypted: boolean;
}

const fieldsOrder = { orderBy: { position: "asc" } } as const;

export async function installationSlugTaken(db: DbTx, { teamId, slug }: { teamId: string; slug: string }) {
  return (await db.installation.count({ where: { teamId, slug } })) > 0;
}

export async function insertInstallation(
  db: DbTx,
  input: {
    teamId: string;
    templateId: string;
    slug: string;
    name: string;
    requestLogging: boolean;
    createdById: string;
    values: StoredValue[];
  },
) {
  return db.installation.create({
    data: {
      teamId: input.teamId,
      templateId: input.templateId,
      slug: input.slug,
      name: input.name,
      requestLogging: input.requestLogging,
      createdById: input.createdById,
      values: { create: input.values },
    },
    select: { id: true },
  });
}

/**
 * Installations of a team, newest first, with instance counts per status for the servers list; `search` keeps
 * those whose name or slug contains it (any case).
 */
export async function listInstallations(
  db: DbTx,
  { teamId, search, cursor, limit }: { teamId: string; search?: string; cursor?: string | null; limit: number },
) {
  const rows = await db.installation.findMany({
    where: {
      teamId,
      ...(search
        ? {
            OR: [
              { name: { contains: search, mode: "insensitive" as const } },
              { slug: { contains: search, mode: "insensitive" as const } },
            ],
          }
        : {}),
    },
    select: {
      id: true,
      slug: true,
      name: true,
      requestLogging: true,
      createdAt: true,
      template: { select: { id: true, name: true, transport: true } },
      instances: { select: { status: true, userId: true } },
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    ...pageQuery({ cursor, limit }),
  });
  return toPage(rows, limit);
}

/** One installation of the team with its template fields and stored team values (secrets still sealed). */
export async function findInstallation(
  db: DbTx,
  { teamId, installationId }: { teamId: string; installationId: string },
) {
  return db.installation.findFirst({
    where: { id: installationId, teamId },
    select: {
      id: true,
      teamId: true,
      slug: true,
      name: true,
      requestLogging: true,
      sandbox: true,
      createdAt: true,
      template: {
        select: {
          id: true,
          slug: true,
          name: true,
          transport: true,
          command: true,
          args: true,
          url: true,
          oauth: true,
          fields: fieldsOrder,
        },
      },
      values: { select: { key: true, value: true, encrypted: true } },
      _count: { select: { instances: true } },
    },
  });
}

/**
 * Replaces the team values named in `upserts` and deletes those in `removals`, in one transaction.
 * Keys that appear in neither are kept as they are (a secret left empty in the form).
 */
export async function writeInstallationValues(
  db: Tx,
  input: { installationId: string; upserts: StoredValue[]; removals: string[] },
) {
  await db.$transaction(async (tx) => {
    if (input.removals.length > 0) {
      await tx.installationConfigValue.deleteMany({
        where: { installationId: input.installationId, key: { in: input.removals } },
      });
    }
    for (const v of input.upserts) {
      await tx.installationConfigValue.upsert({
        where: { installationId_key: { installationId: input.installationId, key: v.key } },
        create: { installationId: input.installationId, ...v },
        update: { value: v.value, encrypted: v.encrypted },
      });
    }
  });
}

export async function updateInstallationSettings(
  db: DbTx,
  {
    teamId,
    installationId,
    data,
  }: {
    teamId: string;
    installationId: string;
    data: Pick<Prisma.InstallationUpdateManyMutationInput, "requestLogging" | "name">;
  },
) {
  const { count } = await db.installation.updateMany({ where: { id: installationId, teamId }, data });
  return count > 0;
}

/** Replaces the sandbox settings of an installation (validated by the caller against core's schema). */
export async function updateInstallationSandbox(
  db: DbTx,
  { teamId, installationId, sandbox }: { teamId: string; installationId: string; sandbox: Prisma.InputJsonObject },
) {
  const { count } = await db.installation.updateMany({ where: { id: installationId, teamId }, data: { sandbox } });
  return count > 0;
}

/** Every stdio installation's stored sandbox settings (to find those a deployment-wide change concerns). */
export async function listStdioInstallationSandboxes(db: DbTx): Promise<Array<{ id: string; sandbox: unknown }>> {
  return db.installation.findMany({ where: { template: { transport: "stdio" } }, select: { id: true, sandbox: true } });
}

/** Deletes the installation (instances, catalogue, events and logs cascade); returns the instance ids it had. */
export async function deleteInstallation(
  db: Tx,
  { teamId, installationId }: { teamId: string; installationId: string },
) {
  return db.$transaction(async (tx) => {
    const found = await tx.installation.findFirst({
      where: { id: installationId, teamId },
      select: { id: true, instances: { select: { id: true } } },
    });
    if (!found) return null;
    await tx.installation.delete({ where: { id: found.id } });
    return { instanceIds: found.instances.map((i) => i.id) };
  });
}

export async function listInstallationIdsOfTeam(db: DbTx, { teamId }: { teamId: string }): Promise<string[]> {
  const rows = await db.installation.findMany({ where: { teamId }, select: { id: true } });
  return rows.map((r) => r.id);
}
