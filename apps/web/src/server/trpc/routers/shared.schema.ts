import { slugSchema } from "@switchboard/core/accounts";
import { validateFieldKey, validateFieldText } from "@switchboard/core/config";
import { INSTANCE_STATUSES } from "@switchboard/core/status";
import { z } from "zod";
import type { TemplateInput } from "../../services/catalogue.service";

/**
 * Schemas more than one router uses: the pieces of inputs (ids, pages, search, submitted setting values) and of
 * answers (an instance's status, a setting as the browser gets it, `{ ok: true }`, a page of items, a person).
 * A schema one router alone uses lives in that router's own `<router>.schema.ts`.
 */

export const page = { cursor: z.string().nullish(), limit: z.number().int().min(1).max(100).default(25) };
export const id = z.string().min(1).max(64);
/** A list's search box: a piece of a name (or email, slug); blank means everything. */
export const search = z.string().trim().max(100).optional();

/** Submitted setting values by key. A secret left "" keeps what is stored; `clear` removes values explicitly. */
export const valuesInput = {
  values: z.record(z.string().max(100), z.string().max(4000)).default({}),
  clear: z.array(z.string().max(100)).max(50).default([]),
};

export const statusSchema = z.enum(INSTANCE_STATUSES);

/** A setting as the browser gets it: never a secret in clear (zod drops anything not listed here). */
export const presentedField = z.object({
  key: z.string(),
  label: z.string(),
  description: z.string(),
  type: z.enum(["string", "number", "boolean", "url"]),
  kind: z.enum(["arg", "env", "header", "query"]),
  required: z.boolean(),
  secret: z.boolean(),
  defaultValue: z.string().nullable(),
  set: z.boolean(),
  masked: z.string().nullable(),
});

/** What an edit of a server's launch or settings schema does, for the confirmation and the answer. */
export const editImpactView = z.object({
  installations: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      slug: z.string(),
      members: z.number().int(),
      awaiting: z.number().int(),
    }),
  ),
  restarting: z.number().int(),
  awaiting: z.number().int(),
  dropped: z.array(z.string()),
  newlyRequired: z.array(z.string()),
  restarts: z.boolean(),
});

export const ok = z.object({ ok: z.literal(true) });

export const transport = z.enum(["stdio", "sse", "streamable_http"]);
export const person = z.object({ id: z.string(), name: z.string(), email: z.string() });
/** One page of a keyset-paged list (`nextCursor` null: the last page). */
export const paged = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), nextCursor: z.string().nullable() });

// --- a server definition ---------------------------------------------------------------------------------------------

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PLACEHOLDER_NAME = /^[A-Za-z0-9_.-]+$/;
const FORBIDDEN_HEADERS = new Set(["host", "content-length", "connection", "transfer-encoding", "mcp-session-id"]);

const configFieldInput = z
  .object({
    key: z.string().trim().min(1, "Give the field a name.").max(100),
    label: z.string().trim().max(100).default(""),
    tier: z.enum(["team", "user"]),
    kind: z.enum(["arg", "env", "header", "query"]),
    type: z.enum(["string", "number", "boolean", "url"]).default("string"),
    required: z.boolean().default(false),
    secret: z.boolean().default(false),
    defaultValue: z
      .string()
      .max(2000)
      .optional()
      .transform((v) => (v === "" ? undefined : v)),
    description: z.string().trim().max(500).default(""),
    /** For arg fields: a supplied value starting with "-" is refused, or the field's values go after "--". */
    optionValues: z.enum(["refuse", "after_separator"]).default("refuse"),
  })
  .superRefine((f, ctx) => {
    const bad = (message: string, path: string) => ctx.addIssue({ code: "custom", message, path: [path] });
    if (f.kind === "env" && !ENV_NAME.test(f.key)) bad(`“${f.key}” is not a valid environment variable name.`, "key");
    const keyProblem = validateFieldKey(f.kind, f.key);
    if (keyProblem) bad(keyProblem, "key");
    if (f.kind === "header" && FORBIDDEN_HEADERS.has(f.key.toLowerCase()))
      bad(`The ${f.key} header is managed by Switchboard.`, "key");
    if (f.kind === "arg" && !PLACEHOLDER_NAME.test(f.key))
      bad("Argument names may use letters, digits, “_”, “.” and “-”.", "key");
    if (f.secret && f.defaultValue !== undefined) bad("A secret field cannot have a default value.", "defaultValue");
    if (f.defaultValue !== undefined) {
      if (f.type === "number" && !Number.isFinite(Number(f.defaultValue)))
        bad("The default must be a number.", "defaultValue");
      if (f.type === "boolean" && !["true", "false"].includes(f.defaultValue))
        bad("The default must be true or false.", "defaultValue");
      if (f.type === "url" && !URL.canParse(f.defaultValue)) bad("The default must be a URL.", "defaultValue");
      // Control characters, and Latin-1 for a header: the default is sent as the value would be.
      const textProblem = validateFieldText(f.kind, "The default", f.defaultValue);
      if (textProblem) bad(textProblem, "defaultValue");
    }
  });

/** A server definition as an admin submits it: catalogue.create and update, installation.create and edit. */
export const templateInput = z
  .object({
    slug: slugSchema,
    name: z.string().trim().min(2, "Give the server a name.").max(80),
    description: z.string().trim().max(1000).default(""),
    transport: z.enum(["stdio", "sse", "streamable_http"]),
    command: z.string().trim().max(500).optional(),
    args: z.array(z.string().max(2000)).max(100).default([]),
    url: z.string().trim().max(2000).optional(),
    oauth: z.boolean().default(false),
    fields: z.array(configFieldInput).max(50).default([]),
  })
  .superRefine((t, ctx) => {
    const bad = (message: string, path: (string | number)[]) => ctx.addIssue({ code: "custom", message, path });
    if (t.transport === "stdio") {
      if (!t.command) bad("A stdio server needs a command to run.", ["command"]);
      if (t.oauth) bad("OAuth applies to remote servers only.", ["oauth"]);
    } else {
      if (!t.url) bad("A remote server needs a URL.", ["url"]);
      else if (!URL.canParse(t.url) || !/^https?:$/.test(new URL(t.url).protocol))
        bad("Enter an http:// or https:// URL.", ["url"]);
      else if (new URL(t.url).username || new URL(t.url).password) {
        bad("Leave the user name and password out of the URL; put credentials in a secret header field instead.", [
          "url",
        ]);
      }
    }
    const seen = new Set<string>();
    t.fields.forEach((f, i) => {
      if (seen.has(f.key)) bad(`The field name “${f.key}” is used twice.`, ["fields", i, "key"]);
      seen.add(f.key);
      const allowed = t.transport === "stdio" ? ["arg", "env"] : ["header", "query"];
      if (!allowed.includes(f.kind)) {
        bad(
          `A ${t.transport === "stdio" ? "stdio" : "remote"} server takes ${allowed.join(" or ")} fields, not ${f.kind}.`,
          ["fields", i, "kind"],
        );
      }
    });
  }) satisfies z.ZodType<TemplateInput>;
