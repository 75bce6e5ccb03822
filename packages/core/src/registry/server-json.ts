import { z } from "zod";
import type { ConfigFieldKind, ConfigFieldType } from "../config/types";

/**
 * The official MCP registry's `server.json` (modelcontextprotocol/registry, docs/server-json/schema.json) turned
 * into a template draft: a package run by its launcher (npm through `npx`, PyPI through `uvx`, or the package's
 * `runtimeHint`) with its arguments and environment variables, or a remote (Streamable HTTP / SSE) with its
 * headers. Secrets become each member's own setting (a personal API key), other inputs team settings with their
 * defaults; required stays required. The registry's current camelCase names are read, and the snake_case of its
 * first drafts too. Pure: no I/O.
 */

export interface DraftField {
  key: string;
  label: string;
  tier: "team" | "user";
  kind: ConfigFieldKind;
  type: ConfigFieldType;
  required: boolean;
  secret: boolean;
  defaultValue?: string;
  description: string;
}

export interface TemplateDraft {
  slug: string;
  name: string;
  description: string;
  transport: "stdio" | "sse" | "streamable_http";
  command?: string;
  args: string[];
  url?: string;
  oauth: boolean;
  fields: DraftField[];
}

export type ImportResult = { ok: true; draft: TemplateDraft; notes: string[] } | { ok: false; message: string };

const str = z.string().max(4000);
const input = z.looseObject({
  name: str.optional(),
  description: str.optional(),
  value: str.optional(),
  default: str.optional(),
  format: str.optional(),
  choices: z.array(str).optional(),
  isRequired: z.boolean().optional(),
  is_required: z.boolean().optional(),
  isSecret: z.boolean().optional(),
  is_secret: z.boolean().optional(),
});
const argument = input.extend({
  type: z.enum(["positional", "named"]).optional(),
  valueHint: str.optional(),
  value_hint: str.optional(),
  isRepeated: z.boolean().optional(),
  is_repeated: z.boolean().optional(),
  variables: z.record(z.string(), input).optional(),
});
const pkg = z.looseObject({
  registryType: str.optional(),
  registry_name: str.optional(),
  identifier: str.optional(),
  name: str.optional(),
  version: str.optional(),
  runtimeHint: str.optional(),
  runtime_hint: str.optional(),
  transport: z.looseObject({ type: str.optional(), url: str.optional() }).optional(),
  runtimeArguments: z.array(argument).max(100).optional(),
  runtime_arguments: z.array(argument).max(100).optional(),
  packageArguments: z.array(argument).max(100).optional(),
  package_arguments: z.array(argument).max(100).optional(),
  environmentVariables: z.array(input).max(100).optional(),
  environment_variables: z.array(input).max(100).optional(),
});
const remote = z.looseObject({
  type: str.optional(),
  transport_type: str.optional(),
  url: str,
  headers: z.array(input).max(100).optional(),
});
const serverJson = z.looseObject({
  name: str,
  title: str.optional(),
  description: str.optional(),
  version: str.optional(),
  packages: z.array(pkg).max(20).optional(),
  remotes: z.array(remote).max(20).optional(),
});

export type ServerJson = z.infer<typeof serverJson>;

const LAUNCHERS: Record<string, string> = { npm: "npx", pypi: "uvx" };
const LAUNCHABLE_HINTS = new Set(["npx", "uvx", "pnpm", "bunx", "pipx"]);

function slugOf(name: string): string {
  const last = name.split("/").at(-1) ?? name;
  const slug = last
    .toLowerCase()
    .replace(/^(mcp-server-|server-)/, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  return slug.length >= 2 ? slug : "server";
}

function titleOf(doc: ServerJson): string {
  if (doc.title) return doc.title.slice(0, 80);
  const last = (doc.name.split("/").at(-1) ?? doc.name)
    .replace(/^(mcp-server-|server-)/, "")
    .replace(/[-_]+/g, " ")
    .trim();
  return (last.charAt(0).toUpperCase() + last.slice(1)).slice(0, 80) || doc.name.slice(0, 80);
}

const required = (i: z.infer<typeof input>) => i.isRequired ?? i.is_required ?? false;
const secret = (i: z.infer<typeof input>) => i.isSecret ?? i.is_secret ?? false;
const typeOf = (format?: string): ConfigFieldType =>
  format === "number" ? "number" : format === "boolean" ? "boolean" : "string";

function field(key: string, kind: ConfigFieldKind, i: z.infer<typeof input>): DraftField {
  const isSecret = secret(i);
  const description = [i.description ?? "", i.choices?.length ? `One of: ${i.choices.join(", ")}.` : ""]
    .filter(Boolean)
    .join(" ")
    .slice(0, 500);
  return {
    key,
    label: key,
    // A secret is a credential: each member brings their own. Everything else is the team's, with its default.
    tier: isSecret ? "user" : "team",
    kind,
    type: typeOf(i.format),
    required: required(i) && !(i.default && !isSecret),
    secret: isSecret,
    ...(i.default && !isSecret ? { defaultValue: i.default } : {}),
    description,
  };
}

const placeholderKey = (raw: string) => raw.replace(/[^A-Za-z0-9_.-]+/g, "_").replace(/^_+|_+$/g, "") || "value";

/** `{var}` in a registry value becomes our `{{var}}` placeholder, with a field for each variable. */
function withVariables(
  value: string,
  variables: Record<string, z.infer<typeof input>> | undefined,
  fields: DraftField[],
): string {
  return value.replace(/\{([A-Za-z0-9_.-]+)\}/g, (_whole, name: string) => {
    const key = placeholderKey(name);
    if (!fields.some((f) => f.key === key)) fields.push(field(key, "arg", variables?.[name] ?? { isRequired: true }));
    return `{{${key}}}`;
  });
}

function argumentsOf(list: z.infer<typeof argument>[], fields: DraftField[], notes: string[]): string[] {
  const out: string[] = [];
  for (const a of list) {
    const kind = a.type ?? (a.name ? "named" : "positional");
    const hint = a.valueHint ?? a.value_hint;
    if (kind === "named") {
      if (!a.name) continue;
      if (a.value !== undefined) {
        out.push(a.name, withVariables(a.value, a.variables, fields));
      } else if (required(a) || a.default !== undefined || secret(a)) {
        const key = placeholderKey(a.name.replace(/^-+/, ""));
        fields.push(field(key, "arg", a));
        out.push(a.name, `{{${key}}}`);
      } else {
        notes.push(`The optional option ${a.name} was left out; add it to the arguments if you need it.`);
      }
      continue;
    }
    if (a.value !== undefined) {
      out.push(withVariables(a.value, a.variables, fields));
      continue;
    }
    const key = placeholderKey(hint ?? `arg${out.length + 1}`);
    fields.push(field(key, "arg", a));
    out.push(`{{${key}}}`);
  }
  return out;
}

function fromPackage(doc: ServerJson, p: z.infer<typeof pkg>, notes: string[]): TemplateDraft | null {
  const registry = (p.registryType ?? p.registry_name ?? "").toLowerCase();
  const identifier = p.identifier ?? p.name;
  const hint = p.runtimeHint ?? p.runtime_hint;
  const launcher = hint && LAUNCHABLE_HINTS.has(hint) ? hint : LAUNCHERS[registry];
  if (!identifier || !launcher) return null;
  const transport = p.transport?.type;
  if (transport && transport !== "stdio") return null;
  const fields: DraftField[] = [];
  const spec =
    p.version && p.version !== "latest"
      ? launcher === "uvx"
        ? `${identifier}==${p.version}`
        : `${identifier}@${p.version}`
      : identifier;
  const runtimeArgs = argumentsOf(p.runtimeArguments ?? p.runtime_arguments ?? [], fields, notes);
  const packageArgs = argumentsOf(p.packageArguments ?? p.package_arguments ?? [], fields, notes);
  for (const env of p.environmentVariables ?? p.environment_variables ?? []) {
    if (env.name && /^[A-Za-z_][A-Za-z0-9_]*$/.test(env.name) && !fields.some((f) => f.key === env.name))
      fields.push(field(env.name, "env", env));
  }
  const launcherArgs =
    launcher === "npx" && !runtimeArgs.includes("-y") && !runtimeArgs.includes("--yes") ? ["-y"] : [];
  return {
    slug: slugOf(doc.name),
    name: titleOf(doc),
    description: (doc.description ?? "").slice(0, 1000),
    transport: "stdio",
    command: launcher,
    args: [...launcherArgs, ...runtimeArgs, spec, ...packageArgs],
    oauth: false,
    fields,
  };
}

function fromRemote(doc: ServerJson, r: z.infer<typeof remote>, notes: string[]): TemplateDraft | null {
  const type = (r.type ?? r.transport_type ?? "").toLowerCase();
  const transport =
    type === "sse"
      ? "sse"
      : type === "streamable-http" || type === "streamable_http" || type === "http"
        ? "streamable_http"
        : null;
  if (!transport || !URL.canParse(r.url.replace(/\{[^}]*\}/g, "x"))) return null;
  if (/\{[^}]*\}/.test(r.url)) notes.push("The URL has variables ({…}): replace them with your values.");
  const fields: DraftField[] = [];
  for (const h of r.headers ?? []) {
    if (!h.name) continue;
    const f = field(h.name, "header", h);
    if (h.value && !/\{[^}]*\}/.test(h.value) && !f.secret) f.defaultValue = h.value;
    else if (h.value) f.description = [f.description, `Format: ${h.value}`].filter(Boolean).join(" ").slice(0, 500);
    fields.push(f);
  }
  return {
    slug: slugOf(doc.name),
    name: titleOf(doc),
    description: (doc.description ?? "").slice(0, 1000),
    transport,
    url: r.url,
    args: [],
    oauth: false,
    fields,
  };
}

/**
 * A template draft from a `server.json` document (already parsed JSON). The first package Switchboard can launch
 * wins (npm, PyPI, or a launcher named by its runtime hint), else the first remote. Notes say what was left out.
 */
export function templateFromServerJson(doc: unknown): ImportResult {
  const parsed = serverJson.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      message: `This is not a server.json the registry would accept: ${issue ? `${issue.path.join(".") || "the document"}: ${issue.message}` : "unknown problem"}.`,
    };
  }
  const notes: string[] = [];
  for (const p of parsed.data.packages ?? []) {
    const draft = fromPackage(parsed.data, p, notes);
    if (draft) {
      const others = (parsed.data.packages?.length ?? 1) - 1 + (parsed.data.remotes?.length ?? 0);
      if (others > 0)
        notes.push(
          `Imported the ${p.registryType ?? p.registry_name} package; the document offers ${others} other way${others > 1 ? "s" : ""} to run it.`,
        );
      return { ok: true, draft, notes };
    }
  }
  for (const r of parsed.data.remotes ?? []) {
    const draft = fromRemote(parsed.data, r, notes);
    if (draft) return { ok: true, draft, notes };
  }
  const kinds = [...(parsed.data.packages ?? []).map((p) => p.registryType ?? p.registry_name ?? "unknown")];
  return {
    ok: false,
    message:
      kinds.length > 0
        ? `Switchboard cannot run this server's packages (${kinds.join(", ")}): it runs npm and PyPI packages, or connects to a remote URL.`
        : "This server.json has neither a package nor a remote to connect to.",
  };
}

/** A registry's answer for one server (`{ server, _meta }`) or a bare server.json: the server.json inside. */
export function serverJsonOf(body: unknown): unknown {
  if (body && typeof body === "object" && "server" in body && typeof (body as { server: unknown }).server === "object")
    return (body as { server: unknown }).server;
  return body;
}
