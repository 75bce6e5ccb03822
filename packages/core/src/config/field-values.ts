import type { ConfigField, ConfigTier } from "./types";

function present(value: string | null | undefined): value is string {
  return value !== undefined && value !== null && value !== "";
}

/**
 * The value a field resolves to: the value supplied at the field's own tier, else the template default.
 * A value supplied at the other tier is ignored (a team value never fills a member's personal field, and a
 * member cannot override a team-managed one). An empty string counts as "no value".
 */
export function effectiveValue(
  field: ConfigField,
  teamValues: Readonly<Record<string, string>>,
  userValues: Readonly<Record<string, string>>,
): string | undefined {
  const supplied = field.tier === "team" ? teamValues[field.key] : userValues[field.key];
  if (present(supplied)) return supplied;
  if (present(field.defaultValue)) return field.defaultValue;
  return undefined;
}

/**
 * Keys of required fields with no default and no value at their tier. A non-empty result for the user tier is
 * what puts a member's instance in `awaiting_user_config`. Pass `tier` to check one tier only.
 */
export function missingRequiredFields(
  fields: readonly ConfigField[],
  teamValues: Readonly<Record<string, string>>,
  userValues: Readonly<Record<string, string>>,
  tier?: ConfigTier,
): string[] {
  return fields
    .filter((f) => f.required && (tier === undefined || f.tier === tier))
    .filter((f) => effectiveValue(f, teamValues, userValues) === undefined)
    .map((f) => f.key);
}
