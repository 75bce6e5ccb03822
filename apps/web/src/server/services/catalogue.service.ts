import "server-only";
import type { ArgOptionValues, ConfigFieldKind, ConfigFieldType, ConfigTier } from "@switchboard/core/config";
import type { Db } from "@switchboard/db/client";
import {
  createTemplate,
  deleteTemplate,
  findTemplate,
  listTemplates,
  templateSlugTaken,
} from "@switchboard/db/queries/template";
import { urlRefusal } from "@switchboard/runtime/egress";
import { AppError } from "../errors";
import type { Actor } from "./actor";
import { assertStdioAllowed } from "./deployment.service";

/** A setting of a server definition as an admin submits it (the console's `templateInput` parses into it). */
export interface TemplateFieldInput {
  key: string;
  label: string;
  tier: ConfigTier;
  kind: ConfigFieldKind;
  type: ConfigFieldType;
  required: boolean;
  secret: boolean;
  /** Absent: no default ("" counts as none). */
  defaultValue: string | undefined;
  description: string;
  optionValues: ArgOptionValues;
}

/** A server definition as an admin submits it, checked (the console's `templateInput` parses into it). */
export interface TemplateInput {
  slug: string;
  name: string;
  description: string;
  transport: "stdio" | "sse" | "streamable_http";
  command?: string | undefined;
  args: string[];
  url?: string | undefined;
  oauth: boolean;
  fields: TemplateFieldInput[];
}

type Template = NonNullable<Awaited<ReturnType<typeof findTemplate>>>;

/** What the browser sees of a template: everything but secrets (templates hold no secret values). */
function present(t: Template) {
  return {
    id: t.id,
    slug: t.slug,
    name: t.name,
    description: t.description,
    transport: t.transport,
    command: t.command,
    args: t.args,
    url: t.url,
    oauth: t.oauth,
    installationCount: t._count.installations,
    /** The installations that use this template: an edit changes them all. */
    installations: t.installations,
    createdAt: t.createdAt,
    fields: t.fields.map((f) => ({
      key: f.key,
      label: f.label,
      tier: f.tier,
      kind: f.kind,
      type: f.type,
      required: f.required,
      secret: f.secret,
      defaultValue: f.defaultValue,
      description: f.description,
      optionValues: f.optionValues,
    })),
  };
}

export async function list({
  db,
  actor,
  cursor,
  limit,
}: {
  db: Db;
  actor: Actor;
  cursor?: string | null;
  limit: number;
}) {
  const { teamId } = actor;
  const page = await listTemplates(db, { teamId, cursor, limit });
  return { items: page.items.map(present), nextCursor: page.nextCursor };
}

export async function get({ db, actor, templateId }: { db: Db; actor: Actor; templateId: string }) {
  const { teamId } = actor;
  const t = await findTemplate(db, { teamId, templateId });
  if (!t) throw new AppError("NOT_FOUND", "Server template not found.");
  return present(t);
}

export async function create({ db, actor, input }: { db: Db; actor: Actor; input: TemplateInput }) {
  const { teamId, userId } = actor;
  if (await templateSlugTaken(db, { teamId, slug: input.slug })) {
    throw new AppError("CONFLICT", `A server with the slug “${input.slug}” already exists in this team.`);
  }
  const stdio = input.transport === "stdio";
  if (stdio) {
    const envKeys = input.fields.filter((f) => f.kind === "env").map((f) => f.key);
    await assertStdioAllowed(db, { teamId, command: input.command ?? "", args: input.args, envKeys });
  }
  // What the URL alone tells (an address on this host, the metadata service, a private network not allowed);
  // names are checked against the addresses they resolve to whenever a connection is opened.
  const refusal = !stdio && input.url ? urlRefusal(input.url) : null;
  if (refusal) throw new AppError("INVALID_INPUT", refusal);
  const created = await createTemplate(db, {
    teamId,
    slug: input.slug,
    name: input.name,
    description: input.description,
    transport: input.transport,
    command: stdio ? (input.command ?? null) : null,
    args: stdio ? input.args : [],
    url: stdio ? null : (input.url ?? null),
    oauth: input.oauth,
    createdById: userId,
    fields: input.fields,
  });
  return get({ db, actor, templateId: created.id });
}

export async function remove({ db, actor, templateId }: { db: Db; actor: Actor; templateId: string }) {
  const { teamId } = actor;
  const t = await findTemplate(db, { teamId, templateId });
  if (!t) throw new AppError("NOT_FOUND", "Server template not found.");
  if (t._count.installations > 0) {
    throw new AppError(
      "CONFLICT",
      `“${t.name}” is installed ${t._count.installations} time(s). Remove those installations first.`,
    );
  }
  await deleteTemplate(db, { teamId, templateId });
}
