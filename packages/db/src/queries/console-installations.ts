import type { DbTx, Tx } from "../client";
import { pageQuery, toPage } from "../pagination";
import type { Prisma } from "../generated/prisma/client";

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

/** Installations of a team, newest first, with instance counts per status for the servers list. */
export async function listInstallations(
  db: DbTx,
  { teamId, cursor, limit }: { teamId: string; cursor?: string | null; limit: number },
) {
  const rows = await db.installation.findMany({
    where: { teamId },
    select: {
      id: true,
      slug: true,
      name: true,
      requestLogging: true,
      createdAt: true,
      template: { select: { id: true, name: true, transport: true } },
      instances: { select: { status: true } },
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
