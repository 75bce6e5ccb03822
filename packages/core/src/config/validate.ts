import type { ConfigField, ConfigFieldKind } from "./types";

/** An HTTP header name: an RFC 9110 token. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Control characters other than tab: C0 (NUL, CR, LF and the rest) and DEL. In a header value CR/LF would
 * split the request (undici refuses it and the instance failed, echoing the value); in a query value or an
 * argument they are never what a person meant to type.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;
/** Outside Latin-1: not representable in an HTTP header value (fetch refuses it as a ByteString). */
// eslint-disable-next-line no-control-regex -- the range starts at NUL on purpose
const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;

/** Where a value goes, in words, for messages. */
const PLACE: Record<ConfigFieldKind, string> = {
  header: "an HTTP header",
  query: "the server's URL",
  env: "an environment variable",
  arg: "a command-line argument",
};

/** A readable problem with the name `key` for a field of `kind`, or null when it is acceptable. */
export function validateFieldKey(kind: ConfigFieldKind, key: string): string | null {
  if (kind === "header" && !HEADER_NAME.test(key)) {
    return `“${key}” is not a valid HTTP header name (use letters, digits and - _ . ! # $ % & ' * + ^ \` | ~).`;
  }
  if (CONTROL.test(key)) return "A field name cannot contain line breaks or control characters.";
  return null;
}

/**
 * What a value may not contain wherever it goes, and the Latin-1 rule of header values; `name` is how the
 * message calls the value. Part of validateFieldValue, and on its own for a template's default values.
 */
export function validateFieldText(kind: ConfigFieldKind, name: string, value: string): string | null {
  if (value.includes("\u0000")) return `${name} cannot contain a NUL character.`;
  // Environment values legitimately span lines (a PEM key); nothing else here does.
  if (kind !== "env" && CONTROL.test(value)) {
    return `${name} cannot contain line breaks or control characters: it is sent in ${PLACE[kind]}.`;
  }
  if (kind === "header" && BEYOND_LATIN1.test(value)) {
    const char = value.match(BEYOND_LATIN1)![0];
    return `${name} cannot contain “${char}”: HTTP header values take Latin-1 characters only.`;
  }
  return null;
}

/** A readable problem with `value` for `field`, or null when it is acceptable. Empty optional values are fine. */
export function validateFieldValue(field: ConfigField, value: string): string | null {
  const name = field.label || field.key;
  if (value === "") return field.required ? `${name} is required.` : null;
  const text = validateFieldText(field.kind, name, value);
  if (text) return text;
  if (looksLikeOption(field, value)) return optionValueProblem(field);
  switch (field.type) {
    case "string":
      return null;
    case "number":
      return value.trim() !== "" && Number.isFinite(Number(value)) ? null : `${name} must be a number.`;
    case "boolean":
      return value === "true" || value === "false" ? null : `${name} must be "true" or "false".`;
    case "url": {
      let parsed: URL;
      try {
        parsed = new URL(value);
      } catch {
        return `${name} must be a URL.`;
      }
      return parsed.protocol === "http:" || parsed.protocol === "https:"
        ? null
        : `${name} must be an http or https URL.`;
    }
  }
}

/** True for a supplied `arg` value that the command would read as an option, unless the field puts it after "--". */
export function looksLikeOption(field: ConfigField, value: string): boolean {
  return field.kind === "arg" && field.optionValues !== "after_separator" && value.startsWith("-");
}

export function optionValueProblem(field: ConfigField): string {
  return `${field.label || field.key} cannot start with "-", because the server would read it as an option; remove the dash or ask an admin to change this setting.`;
}
