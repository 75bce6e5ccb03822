import type { DbTx } from "../client";
import { pageQuery, toPage } from "../pagination";
import type { FieldSeed } from "../seed/catalogue";

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
