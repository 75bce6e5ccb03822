import { REDACTED } from "../config/secrets";

/**
 * Keys whose values an audit record never holds: secrets, credentials, and the configuration values members and
 * admins type (which may be secrets whatever the field is called). The record keeps that the key was there.
 */
const SECRET_KEY = /(secret|password|passwd|token|api[-_]?key|apikey|authorization|credential|private[-_]?key|cookie)/i;
/** Configuration values by field key: the keys stay (which settings changed), every value is redacted. */
const VALUE_KEY = /^(values?|.*Values)$/;

/**
 * A copy of `value` fit for the audit trail: secret-looking members replaced by "[redacted]" at every depth, long
 * strings cut, deep nesting stopped. Used for the before and after of every record and for a call's input.
 */
export function maskForAudit(value: unknown, depth = 0): unknown {
  if (value === null || value === undefined) return value ?? null;
  if (typeof value === "string") return value.length > 500 ? `${value.slice(0, 500)}…` : value;
  if (typeof value !== "object") return value;
  if (value instanceof Date) return value.toISOString();
  if (depth >= 6) return "[…]";
  if (Array.isArray(value)) return value.slice(0, 100).map((v) => maskForAudit(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue;
    if (SECRET_KEY.test(key) && v !== null && v !== "") out[key] = REDACTED;
    else if (VALUE_KEY.test(key) && v !== null && typeof v === "object" && !Array.isArray(v))
      out[key] = Object.fromEntries(Object.keys(v).map((k) => [k, REDACTED]));
    else if (VALUE_KEY.test(key) && v !== null && v !== "" && typeof v !== "object") out[key] = REDACTED;
    else out[key] = maskForAudit(v, depth + 1);
  }
  return out;
}

/** The top-level keys whose values differ between two masked snapshots (a secret's change shows as its key). */
export function changedKeys(before: unknown, after: unknown): string[] {
  const b = (before ?? {}) as Record<string, unknown>;
  const a = (after ?? {}) as Record<string, unknown>;
  if (typeof b !== "object" || typeof a !== "object") return [];
  const keys = new Set([...Object.keys(b), ...Object.keys(a)]);
  return [...keys].filter((k) => JSON.stringify(b[k]) !== JSON.stringify(a[k])).sort();
}
