import type { Db } from "../client";
import { getCipher } from "../crypto";

/**
 * Seed helpers for templates, installations and instances. The demo seed uses them, and tests use them as
 * factories (pass unique slugs). Instances start in `provisioning` unless a required member field is missing;
 * the worker's start-up reconciliation picks them up from there.
 */
export interface FieldSeed {
  key: string;
  label?: string;
  tier: "team" | "user";
  kind: "arg" | "env" | "header" | "query";
  type?: "string" | "number" | "boolean" | "url";
  required?: boolean;
  secret?: boolean;
  defaultValue?: string;
  description?: string;
  /** For arg fields: refuse supplied values starting with "-" (default) or put them after "--". */
  optionValues?: "refuse" | "after_separator";
}

export interface TemplateSeed {
  teamId: string;
  slug: string;
  name: string;
  description?: string;
  transport: "stdio" | "sse" | "streamable_http";
  command?: string;
  args?: string[];
  url?: string;
  fields?: FieldSeed[];
  createdById?: string;
}

export async function seedTemplate(db: Db, t: TemplateSeed) {
  return db.serverTemplate.create({
    data: {
      teamId: t.teamId,
      slug: t.slug,
      name: t.name,
      description: t.description ?? "",
      transport: t.transport,
      command: t.command ?? null,
      args: t.args ?? [],
      url: t.url ?? null,
      createdById: t.createdById ?? null,
      fields: { create: (t.fields ?? []).map((f, position) => ({ ...f, label: f.label ?? f.key, position })) },
    },
    include: { fields: true },
  });
}

/** Installs a template for its team and creates one instance per member, with the given member values. */
export async function seedInstallation(
  db: Db,
  input: {
    template: Awaited<ReturnType<typeof seedTemplate>>;
    slug?: string;
    name?: string;
    teamValues?: Record<string, string>;
    memberValues?: Record<string, Record<string, string>>;
    createdById?: string;
  },
) {
  const { template } = input;
  const cipher = getCipher();
  const secretKeys = new Set(template.fields.filter((f) => f.secret).map((f) => f.key));
  const seal = (key: string, value: string) =>
    secretKeys.has(key) ? { key, value: cipher.encrypt(value), encrypted: true } : { key, value, encrypted: false };

  const members = await db.membership.findMany({ where: { teamId: template.teamId } });
  const requiredUserFields = template.fields
    .filter((f) => f.tier === "user" && f.required && !f.defaultValue)
    .map((f) => f.key);

  return db.installation.create({
    data: {
      teamId: template.teamId,
      templateId: template.id,
      slug: input.slug ?? template.slug,
      name: input.name ?? template.name,
      createdById: input.createdById ?? null,
      values: { create: Object.entries(input.teamValues ?? {}).map(([k, v]) => seal(k, v)) },
      instances: {
        create: members.map((m) => {
          const values = input.memberValues?.[m.userId] ?? {};
          const missing = requiredUserFields.filter((k) => !values[k]);
          return {
            userId: m.userId,
            status: missing.length ? ("awaiting_user_config" as const) : ("provisioning" as const),
            statusMessage: missing.length
              ? `Add your ${missing.join(", ")} to start this server.`
              : "Waiting for the worker",
            values: { create: Object.entries(values).map(([k, v]) => seal(k, v)) },
          };
        }),
      },
    },
    include: { instances: true },
  });
}
