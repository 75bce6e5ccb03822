/** Who supplies a field's value: the team admin once for everyone, or each member for themselves. */
export type ConfigTier = "team" | "user";

/** Where a field's value goes in the launch. */
export type ConfigFieldKind = "arg" | "env" | "header" | "query";

export type ConfigFieldType = "string" | "number" | "boolean" | "url";

/**
 * What an `arg` field does with a supplied value (team or member) that starts with "-", which the command would
 * read as an option: `refuse` it (when saved and at launch; the default), or put the field's values after a
 * `--` separator at the end of the command line (`after_separator`), where they stay operands whatever they are.
 * Template defaults are the template author's, like the template args, and are not checked.
 */
export type ArgOptionValues = "refuse" | "after_separator";

export interface ConfigField {
  key: string;
  label?: string;
  tier: ConfigTier;
  kind: ConfigFieldKind;
  type: ConfigFieldType;
  required: boolean;
  secret: boolean;
  defaultValue?: string | null;
  description?: string;
  /** For `arg` fields; absent means "refuse". */
  optionValues?: ArgOptionValues;
}

export type TemplateLaunch =
  { transport: "stdio"; command: string; args: string[] } | { transport: "sse" | "streamable_http"; url: string };

export type ResolvedLaunch =
  | { transport: "stdio"; command: string; args: string[]; env: Record<string, string> }
  | { transport: "sse" | "streamable_http"; url: string; headers: Record<string, string> };
