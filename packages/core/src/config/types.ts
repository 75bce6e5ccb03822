/** Who supplies a field's value: the team admin once for everyone, or each member for themselves. */
export type ConfigTier = "team" | "user";

/** Where a field's value goes in the launch. */
export type ConfigFieldKind = "arg" | "env" | "header" | "query";

export type ConfigFieldType = "string" | "number" | "boolean" | "url";

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
}

export type TemplateLaunch =
  | { transport: "stdio"; command: string; args: string[] }
  | { transport: "sse" | "streamable_http"; url: string };

export type ResolvedLaunch =
  | { transport: "stdio"; command: string; args: string[]; env: Record<string, string> }
  | { transport: "sse" | "streamable_http"; url: string; headers: Record<string, string> };
