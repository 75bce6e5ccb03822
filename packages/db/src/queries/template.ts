import type { DbTx } from "../client";
import { pageQuery, toPage } from "../pagination";
import type { FieldSeed } from "../seed/catalogue";
import type { Cipher } from "../crypto";

export async function listTemplates(
  db: DbTx,
  { teamId, cursor, limit }: { teamId: string; cursor?: string | null; limit: number },
) {
  const rows = await db.serverTemplate.findMany({
    where: { teamId },
    include: {
      fields: { orderBy: { position: "asc" } },
      _count: { select: { installations: true } },
      installations: { select: { id: true, name: true, slug: true }, orderBy: { name: "asc" } },
    },
    orderBy: [{ name: "asc" }, { id: "asc" }],
    ...pageQuery({ cursor, limit }),
  });
  return toPage(rows, limit);
}

export async function findTemplate(db: DbTx, { teamId, templateId }: { teamId: string; templateId: string }) {
  return db.serverTemplate.findFirst({
    where: { id: templateId, teamId },
    include: {
      fields: { orderBy: { position: "asc" } },
      _count: { select: { installations: true } },
      installations: { select: { id: true, name: true, slug: true }, orderBy: { name: "asc" } },
    },
  });
}

export async function templateSlugTaken(db: DbTx, { teamId, slug }: { teamId: string; slug: string }) {
  return (await db.serverTemplate.count({ where: { teamId, slug } })) > 0;
}

export async function createTemplate(
  db: DbTx,
  t: {
    teamId: string;
    slug: string;
    name: string;
    description: string;
    transport: "stdio" | "sse" | "streamable_http";
    command: string | null;
    args: string[];
    url: string | null;
    oauth: boolean;
    createdById: string;
    fields: FieldSeed[];
  },
) {
  return db.serverTemplate.create({
    data: {
      teamId: t.teamId,
      slug: t.slug,
      name: t.name,
      description: t.description,
      transport: t.transport,
      command: t.command,
      args: t.args,
      url: t.url,
      oauth: t.oauth,
      createdById: t.createdById,
      fields: { create: t.fields.map((f, position) => ({ ...f, label: f.label || f.key, position })) },
    },
    include: { fields: true },
  });
}

export async function deleteTemplate(db: DbTx, { teamId, templateId }: { teamId: string; templateId: string }) {
  return db.serverTemplate.deleteMany({ where: { id: templateId, teamId } });
}

type Tx = { $transaction: <T>(fn: (tx: DbTx) => Promise<T>) => Promise<T> };

/**
 * A template as an edit needs it: its fields, and every installation that uses it with the team values and,
 * per member instance, the keys of the member's values (not the values: an edit only counts who lacks what).
 */
export async function loadTemplateForEdit(db: DbTx, { teamId, templateId }: { teamId: string; templateId: string }) {
  return db.serverTemplate.findFirst({
    where: { id: templateId, teamId },
    include: {
      fields: { orderBy: { position: "asc" } },
      installations: {
        orderBy: { name: "asc" },
        select: {
          id: true,
          name: true,
          slug: true,
          values: { select: { key: true, value: true, encrypted: true } },
          instances: {
            select: { id: true, userId: true, status: true, values: { select: { key: true, value: true } } },
          },
        },
      },
    },
  });
}

export type TemplateForEdit = NonNullable<Awaited<ReturnType<typeof loadTemplateForEdit>>>;

export interface TemplateEdit {
  templateId: string;
  slug?: string;
  name?: string;
  description?: string;
  transport: "stdio" | "sse" | "streamable_http";
  command: string | null;
  args: string[];
  url: string | null;
  oauth: boolean;
  fields: FieldSeed[];
  /** Keys whose stored values (team and member) are deleted. */
  dropped: string[];
  /** Kept keys whose stored values are sealed (secret) or unsealed to match the field. */
  resealed: { key: string; secret: boolean }[];
  /** Team values to write for one installation (already sealed), e.g. a new required team setting. */
  teamValues?: {
    installationId: string;
    upserts: { key: string; value: string; encrypted: boolean }[];
    removals: string[];
  };
  /** A new display name for that installation. */
  installationName?: { installationId: string; name: string };
}

/**
 * Applies an edit of a template's launch and settings schema in one transaction: the template's columns, its
 * fields (kept keys updated in place, so no value is lost; removed ones deleted), the stored values of removed
 * fields dropped for every installation and member, and values resealed when a field's secrecy changed.
 */
export async function applyTemplateEdit(db: Tx, cipher: Cipher, edit: TemplateEdit): Promise<void> {
  await db.$transaction(async (tx) => {
    await tx.serverTemplate.update({
      where: { id: edit.templateId },
      data: {
        ...(edit.slug !== undefined ? { slug: edit.slug } : {}),
        ...(edit.name !== undefined ? { name: edit.name } : {}),
        ...(edit.description !== undefined ? { description: edit.description } : {}),
        transport: edit.transport,
        command: edit.command,
        args: edit.args,
        url: edit.url,
        oauth: edit.oauth,
      },
    });
    const installationIds = (
      await tx.installation.findMany({ where: { templateId: edit.templateId }, select: { id: true } })
    ).map((i) => i.id);
    if (edit.dropped.length > 0) {
      await tx.installationConfigValue.deleteMany({
        where: { installationId: { in: installationIds }, key: { in: edit.dropped } },
      });
      await tx.instanceConfigValue.deleteMany({
        where: { instance: { installationId: { in: installationIds } }, key: { in: edit.dropped } },
      });
    }
    for (const { key, secret } of edit.resealed) {
      const seal = (row: { value: string; encrypted: boolean }) =>
        secret
          ? row.encrypted
            ? row.value
            : cipher.encrypt(row.value)
          : row.encrypted
            ? cipher.decrypt(row.value)
            : row.value;
      for (const row of await tx.installationConfigValue.findMany({
        where: { installationId: { in: installationIds }, key },
      })) {
        await tx.installationConfigValue.update({
          where: { id: row.id },
          data: { value: seal(row), encrypted: secret },
        });
      }
      for (const row of await tx.instanceConfigValue.findMany({
        where: { instance: { installationId: { in: installationIds } }, key },
      })) {
        await tx.instanceConfigValue.update({ where: { id: row.id }, data: { value: seal(row), encrypted: secret } });
      }
    }
    const keep = edit.fields.map((f) => f.key);
    await tx.templateConfigField.deleteMany({ where: { templateId: edit.templateId, key: { notIn: keep } } });
    for (const [position, f] of edit.fields.entries()) {
      const data = {
        label: f.label || f.key,
        tier: f.tier,
        kind: f.kind,
        type: f.type ?? "string",
        required: f.required ?? false,
        secret: f.secret ?? false,
        defaultValue: f.defaultValue ?? null,
        description: f.description ?? "",
        optionValues: f.optionValues ?? "refuse",
        position,
      };
      await tx.templateConfigField.upsert({
        where: { templateId_key: { templateId: edit.templateId, key: f.key } },
        create: { templateId: edit.templateId, key: f.key, ...data },
        update: data,
      });
    }
    if (edit.teamValues) {
      const { installationId, upserts, removals } = edit.teamValues;
      if (removals.length > 0)
        await tx.installationConfigValue.deleteMany({ where: { installationId, key: { in: removals } } });
      for (const v of upserts) {
        await tx.installationConfigValue.upsert({
          where: { installationId_key: { installationId, key: v.key } },
          create: { installationId, ...v },
          update: { value: v.value, encrypted: v.encrypted },
        });
      }
    }
    if (edit.installationName) {
      await tx.installation.update({
        where: { id: edit.installationName.installationId },
        data: { name: edit.installationName.name },
      });
    }
  });
}
