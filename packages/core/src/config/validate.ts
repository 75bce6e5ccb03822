import type { ConfigField } from "./types";

/** A readable problem with `value` for `field`, or null when it is acceptable. Empty optional values are fine. */
export function validateFieldValue(field: ConfigField, value: string): string | null {
  const name = field.label ?? field.key;
  if (value === "") return field.required ? `${name} is required.` : null;
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
