import { missingRequiredFields, resolveLaunch, type ConfigField, type ResolvedLaunch } from "@switchboard/core/config";
import type { DbTx } from "./client";
import type { Cipher } from "./crypto";
import type { StoredValue } from "./queries/installation";

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

export function configFields(
  fields: ReadonlyArray<{
    key: string;
    label: string;
    tier: "team" | "user";
    kind: "arg" | "env" | "header" | "query";
    type: "string" | "number" | "boolean" | "url";
    required: boolean;
    secret: boolean;
    defaultValue: string | null;
    optionValues?: "refuse" | "after_separator";
  }>,
): ConfigField[] {
  return fields.map((f) => ({
    key: f.key,
    label: f.label,
    tier: f.tier,
    kind: f.kind,
    type: f.type,
    required: f.required,
    secret: f.secret,
    defaultValue: f.defaultValue,
    optionValues: f.optionValues,
  }));
}

/** Stored values as a record, secret ones decrypted (only in memory, only for the launch). */
export function decryptValues(values: readonly StoredValue[], cipher: Cipher): Record<string, string> {
  return Object.fromEntries(values.map((v) => [v.key, v.encrypted ? cipher.decrypt(v.value) : v.value]));
}

/** Presence is enough to know whether a member still owes a value: no decryption needed. */
export function missingUserFields(
  fields: ReturnType<typeof configFields>,
  teamValues: readonly StoredValue[],
  userValues: readonly StoredValue[],
): string[] {
  const present = (vs: readonly StoredValue[]) => Object.fromEntries(vs.map((v) => [v.key, v.value]));
  return missingRequiredFields(fields, present(teamValues), present(userValues), "user");
}

/** The concrete launch of an instance: template + team values + member values (core resolveLaunch). */
export function buildLaunch(ctx: InstanceLaunchContext, cipher: Cipher): ResolvedLaunch {
  const { template } = ctx.installation;
  const fields = configFields(template.fields);
  const teamValues = decryptValues(ctx.installation.values, cipher);
  const userValues = decryptValues(ctx.values, cipher);
  if (template.transport === "stdio") {
    if (!template.command) throw new Error("stdio template has no command");
    return resolveLaunch({
      template: { transport: "stdio", command: template.command, args: template.args },
      fields,
      teamValues,
      userValues,
    });
  }
  if (!template.url) throw new Error(`${template.transport} template has no url`);
  return resolveLaunch({
    template: { transport: template.transport, url: template.url },
    fields,
    teamValues,
    userValues,
  });
}

export interface InstanceLaunch {
  ctx: InstanceLaunchContext;
  launch: ResolvedLaunch;
}

/** A stdio instance seen from a process that does not run it (the gateway's MCP route reaches it through a worker). */
export interface StdioRunsElsewhere {
  ctx: InstanceLaunchContext;
  launch: null;
}

/**
 * The one way to load an instance's launch: its context (template, team values, member values) and the launch
 * core resolves from it, secret values decrypted in memory only. Null when the instance no longer exists;
 * throws core's MissingConfigError when a required value is missing. With `stdio: "elsewhere"` a stdio
 * instance's launch is not resolved (its secrets are not decrypted in this process).
 */
export async function loadInstanceLaunch(db: DbTx, cipher: Cipher, instanceId: string): Promise<InstanceLaunch | null>;
export async function loadInstanceLaunch(
  db: DbTx,
  cipher: Cipher,
  instanceId: string,
  opts: { stdio: "elsewhere" },
): Promise<InstanceLaunch | StdioRunsElsewhere | null>;
export async function loadInstanceLaunch(
  db: DbTx,
  cipher: Cipher,
  instanceId: string,
  opts?: { stdio: "elsewhere" },
): Promise<InstanceLaunch | StdioRunsElsewhere | null> {
  const ctx = await getInstanceLaunchContext(db, instanceId);
  if (!ctx) return null;
  if (opts?.stdio === "elsewhere" && ctx.installation.template.transport === "stdio") return { ctx, launch: null };
  return { ctx, launch: buildLaunch(ctx, cipher) };
}
