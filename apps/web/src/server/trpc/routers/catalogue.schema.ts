import { z } from "zod";
import { slugSchema } from "@switchboard/core/accounts";
import { validateFieldKey, validateFieldText } from "@switchboard/core/config";

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
  });

export type TemplateInput = z.infer<typeof templateInput>;
