import { slugify } from "@switchboard/core/accounts";
import { templateInput } from "~/server/trpc/routers/shared.schema";

/** A server's definition as the template form holds it, checks it and hands it to the API. */
export type Transport = "stdio" | "sse" | "streamable_http";
export interface FieldDraft {
  key: string;
  tier: "team" | "user";
  kind: "arg" | "env" | "header" | "query";
  type: "string" | "number" | "boolean" | "url";
  required: boolean;
  secret: boolean;
  defaultValue: string;
  description: string;
  /** Arg fields: what happens to a supplied value starting with "-" (absent: refuse). */
  optionValues?: "refuse" | "after_separator";
}

/** The kinds of setting each transport takes, its default first. */
export const KINDS: Record<Transport, FieldDraft["kind"][]> = {
  stdio: ["env", "arg"],
  sse: ["header", "query"],
  streamable_http: ["header", "query"],
};

/** A server's definition as the form edits it and the API takes it (`templateInput`). */
export interface TemplateDraftValue {
  slug: string;
  name: string;
  description: string;
  transport: Transport;
  command?: string | null;
  args: string[];
  url?: string | null;
  oauth: boolean;
  fields: (Omit<FieldDraft, "defaultValue"> & { label?: string; defaultValue?: string | null })[];
}

/** What the form submits: the API's `templateInput`. */
export type TemplateSubmit = ReturnType<typeof toTemplate>;

/**
 * What is wrong with the definition as typed, keyed like the API's field errors (`name`, `fields.0.key`): the
 * API's own schema (`templateInput`, whose slug rule is core's), checked before anything is sent, so an empty or
 * half-filled form never makes a request.
 */
export function problemsOf(t: TemplateSubmit, { lockSlug, takenSlugs }: { lockSlug?: boolean; takenSlugs?: string[] }) {
  const problems: Record<string, string> = {};
  const parsed = templateInput.safeParse(t);
  for (const issue of parsed.success ? [] : parsed.error.issues) {
    const path = issue.path.join(".");
    if (lockSlug && path === "slug") continue;
    problems[path] ??= issue.message;
  }
  if (!lockSlug && !problems.slug && takenSlugs?.includes(t.slug))
    problems.slug = "Your catalogue already has a server with this slug: install it from there, or pick another.";
  return problems;
}

/** The form's state as the API takes it: the slug from the name when empty, only the transport's own parts. */
export function toTemplate(d: {
  name: string;
  slug: string;
  description: string;
  transport: Transport;
  command: string;
  args: string;
  url: string;
  oauth: boolean;
  fields: FieldDraft[];
}) {
  return {
    name: d.name,
    slug: d.slug || slugify(d.name),
    description: d.description,
    transport: d.transport,
    command: d.transport === "stdio" ? d.command : undefined,
    args:
      d.transport === "stdio"
        ? d.args
            .split("\n")
            .map((a) => a.trim())
            .filter(Boolean)
        : [],
    url: d.transport === "stdio" ? undefined : d.url,
    oauth: d.transport !== "stdio" && d.oauth,
    fields: d.fields.map((f) => ({ ...f, label: f.key, defaultValue: f.defaultValue || undefined })),
  };
}

/** The setting "Add a setting" appends: provided by the team, the transport's first kind, a string. */
export function blankSetting(transport: Transport): FieldDraft {
  return {
    key: "",
    tier: "team",
    kind: KINDS[transport][0]!,
    type: "string",
    required: false,
    secret: false,
    defaultValue: "",
    description: "",
  };
}
