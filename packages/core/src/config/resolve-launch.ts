import { effectiveValue, missingRequiredFields } from "./field-values";
import type { ConfigField, ResolvedLaunch, TemplateLaunch } from "./types";
import { looksLikeOption, optionValueProblem } from "./validate";

export class MissingConfigError extends Error {
  override readonly name = "MissingConfigError";
  constructor(readonly keys: string[]) {
    super(`Missing required configuration: ${keys.join(", ")}`);
  }
}

/**
 * A supplied value the launch cannot use as it is (an argument that would become an option). The message is the
 * one the member saw when saving; values stored before the check was there meet it at launch.
 */
export class InvalidConfigValueError extends Error {
  override readonly name = "InvalidConfigValueError";
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(message);
  }
}

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;
const ONLY_PLACEHOLDER = /^\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}$/;

/**
 * Resolves a template plus the team's and the member's values into the concrete launch of one instance.
 * Precedence per field: the value at the field's own tier, else the template default (see effectiveValue; a
 * value given at the wrong tier is ignored).
 *
 * stdio:
 * - `arg` fields: every `{{key}}` in the template args is replaced by the value, also inside a larger arg
 *   (`--token={{token}}`). An arg that is only `{{key}}` is dropped when the value is empty (an optional flag
 *   left blank); inside a larger arg an empty value becomes "". A value whose key has no placeholder anywhere
 *   is appended as its own argument, in field order. Placeholders that name no field are left untouched.
 *   A supplied (team or member) value starting with "-" is refused (InvalidConfigValueError) unless the field is
 *   `after_separator`: then its values that would be whole arguments (own placeholder arg, or appended) go after
 *   one `--` at the end of the command line instead, in field order. A value inside a larger arg stays put.
 * - `env` fields: set on top of `baseEnv`.
 * - `header`/`query` fields do not apply to a process and are ignored.
 * HTTP (sse, streamable_http):
 * - `header` fields become request headers, `query` fields are set on the URL (replacing a parameter of the
 *   same name already in the template URL). `arg`/`env` fields are ignored.
 * Empty values are never emitted as env vars, headers or query parameters.
 *
 * Throws MissingConfigError when a required field has no value: such an instance belongs in
 * awaiting_user_config and must not be launched with a half-filled config.
 */
export function resolveLaunch(input: {
  template: TemplateLaunch;
  fields: readonly ConfigField[];
  teamValues: Readonly<Record<string, string>>;
  userValues: Readonly<Record<string, string>>;
  baseEnv?: Readonly<Record<string, string>>;
}): ResolvedLaunch {
  const { template, fields, teamValues, userValues } = input;
  const missing = missingRequiredFields(fields, teamValues, userValues);
  if (missing.length > 0) throw new MissingConfigError(missing);

  const valueOf = (field: ConfigField) => effectiveValue(field, teamValues, userValues) ?? "";

  if (template.transport === "stdio") {
    const argFields = new Map(fields.filter((f) => f.kind === "arg").map((f) => [f.key, f]));
    for (const field of argFields.values()) {
      const supplied = (field.tier === "team" ? teamValues : userValues)[field.key];
      if (supplied && looksLikeOption(field, supplied))
        throw new InvalidConfigValueError(field.key, optionValueProblem(field));
    }
    const referenced = new Set<string>();
    const args: string[] = [];
    const operands: string[] = [];
    const place = (field: ConfigField, value: string) => {
      if (value !== "") (field.optionValues === "after_separator" ? operands : args).push(value);
    };
    for (const arg of template.args) {
      const whole = ONLY_PLACEHOLDER.exec(arg);
      const wholeField = whole?.[1] === undefined ? undefined : argFields.get(whole[1]);
      if (wholeField) {
        referenced.add(wholeField.key);
        place(wholeField, valueOf(wholeField));
        continue;
      }
      args.push(
        arg.replace(PLACEHOLDER, (match, key: string) => {
          const field = argFields.get(key);
          if (!field) return match;
          referenced.add(key);
          return valueOf(field);
        }),
      );
    }
    for (const field of argFields.values()) {
      if (!referenced.has(field.key)) place(field, valueOf(field));
    }
    if (operands.length > 0) args.push("--", ...operands);

    const env: Record<string, string> = { ...input.baseEnv };
    for (const field of fields) {
      if (field.kind !== "env") continue;
      const value = valueOf(field);
      if (value !== "") env[field.key] = value;
    }
    return { transport: "stdio", command: template.command, args, env };
  }

  const url = new URL(template.url);
  const headers: Record<string, string> = {};
  for (const field of fields) {
    const value = valueOf(field);
    if (value === "") continue;
    if (field.kind === "header") headers[field.key] = value;
    else if (field.kind === "query") url.searchParams.set(field.key, value);
  }
  return { transport: template.transport, url: url.toString(), headers };
}
