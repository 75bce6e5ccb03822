import type { ConfigField } from "./types";

/**
 * What a server's definition is, as far as an edit can change it: the installation's name and description, the
 * launch (transport, URL or command and arguments, OAuth) and the settings schema.
 */
export interface ServerDefinition {
  name?: string;
  description?: string;
  transport: "stdio" | "sse" | "streamable_http";
  command?: string | null;
  args: readonly string[];
  url?: string | null;
  oauth: boolean;
  fields: readonly ConfigField[];
}

export type DefinitionPart = "name" | "description" | "transport" | "url" | "command" | "args" | "oauth" | "settings";

/** One changed part, before and after in words, and whether saving it restarts the instances. */
export interface DefinitionChange {
  part: DefinitionPart;
  label: string;
  before: string;
  after: string;
  restarts: boolean;
}

/** How the console names each transport, in every place that shows one. */
export const TRANSPORT_LABELS = {
  stdio: "local command (stdio)",
  streamable_http: "Streamable HTTP",
  sse: "SSE (legacy)",
} as const satisfies Record<ServerDefinition["transport"], string>;

/** A field as the settings schema compares it: what a launch reads from it (label and description are words). */
function fieldSignature(f: ConfigField): string {
  return JSON.stringify([
    f.key,
    f.tier,
    f.kind,
    f.type,
    f.required,
    f.secret,
    f.defaultValue ?? null,
    f.optionValues ?? "refuse",
  ]);
}

function fieldWords(fields: readonly ConfigField[]): string {
  if (fields.length === 0) return "none";
  return fields
    .map((f) => `${f.key} (${f.tier === "team" ? "team" : "each member"}${f.required ? ", required" : ""})`)
    .join(", ");
}

/**
 * The parts of a server's definition an edit changes, in the order a person reads them. This is the one rule
 * of what restarts: the launch (transport, URL, command, arguments, OAuth) and the settings schema restart every
 * instance; the name and the description are words and restart nothing. A part absent from `after` (`name`,
 * `description` undefined) is not compared.
 */
export function definitionChanges(before: ServerDefinition, after: ServerDefinition): DefinitionChange[] {
  const changes: DefinitionChange[] = [];
  const add = (part: DefinitionPart, label: string, b: string, a: string, restarts: boolean) => {
    if (b !== a) changes.push({ part, label, before: b, after: a, restarts });
  };
  if (after.name !== undefined) add("name", "Name", before.name ?? "", after.name, false);
  if (after.description !== undefined)
    add("description", "Description", before.description ?? "", after.description, false);
  add("transport", "Transport", TRANSPORT_LABELS[before.transport], TRANSPORT_LABELS[after.transport], true);
  const wasStdio = before.transport === "stdio";
  const isStdio = after.transport === "stdio";
  add("url", "URL", wasStdio ? "" : (before.url ?? ""), isStdio ? "" : (after.url ?? ""), true);
  add("command", "Command", wasStdio ? (before.command ?? "") : "", isStdio ? (after.command ?? "") : "", true);
  add("args", "Arguments", wasStdio ? before.args.join(" ") : "", isStdio ? after.args.join(" ") : "", true);
  add("oauth", "OAuth", before.oauth ? "required" : "not used", after.oauth ? "required" : "not used", true);
  const sameFields =
    before.fields.length === after.fields.length &&
    before.fields.every((f, i) => fieldSignature(f) === fieldSignature(after.fields[i]!));
  if (!sameFields) {
    changes.push({
      part: "settings",
      label: "Settings",
      before: fieldWords(before.fields),
      after: fieldWords(after.fields),
      restarts: true,
    });
  }
  return changes;
}

/** Whether saving these changes restarts the instances (see `definitionChanges` for the rule). */
export function changesRestart(changes: readonly DefinitionChange[]): boolean {
  return changes.some((c) => c.restarts);
}

/**
 * The required fields still without a value: not stored (`set`), no default, nothing but spaces typed. The one
 * check behind "X is required" in every form that collects settings values (install wizard, edit, personal).
 */
export function unfilledRequired<
  F extends { key: string; required: boolean; defaultValue?: string | null; set?: boolean },
>(fields: readonly F[], values: Readonly<Record<string, string | undefined>>): F[] {
  return fields.filter((f) => f.required && !f.set && !f.defaultValue && !values[f.key]?.trim());
}
