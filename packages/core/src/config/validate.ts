import type { ConfigField } from "./types";

/** A readable problem with `value` for `field`, or null when it is acceptable. Empty optional values are fine. */
export function validateFieldValue(field: ConfigField, value: string): string | null {
  const name = field.label ?? field.key;
  if (value === "") return field.required ? `${name} is required.` : null;
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
