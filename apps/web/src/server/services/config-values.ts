import "server-only";
import { maskSecret, missingRequiredFields, validateFieldValue, type ConfigField } from "@switchboard/core/config";
import { getCipher } from "@switchboard/db/crypto";
import type { StoredValue } from "@switchboard/db/queries/installation";
import { AppError } from "../errors";

type FieldRow = Omit<ConfigField, "label" | "description"> & { label: string; description: string };

/** A field as the browser sees it: whether it has a value and its masked form, never a secret in clear. */
export function presentFields(fields: readonly FieldRow[], stored: readonly StoredValue[]) {
  const byKey = new Map(stored.map((v) => [v.key, v]));
  return fields.map((f) => {
    const v = byKey.get(f.key);
    const clear = v ? (v.encrypted ? getCipher().decrypt(v.value) : v.value) : null;
    return {
      key: f.key,
      label: f.label || f.key,
      description: f.description,
      type: f.type,
      kind: f.kind,
      required: f.required,
      secret: f.secret,
      defaultValue: f.secret ? null : (f.defaultValue ?? null),
      set: clear !== null && clear !== "",
      masked: clear === null ? null : f.secret ? maskSecret(clear) : clear,
    };
  });
}

/**
 * Turns a submitted form into rows to write. A secret left empty keeps its stored value (the form never has
 * it); `clear` removes one explicitly. A non-secret left empty is removed. Values are validated by type, and
 * with `requireAll` every required field must end up with a value (the team tier at install time).
 */
export function sealValues(input: {
  fields: readonly FieldRow[];
  stored: readonly StoredValue[];
  submitted: Readonly<Record<string, string>>;
  clear?: readonly string[];
  requireAll: boolean;
}): { upserts: StoredValue[]; removals: string[] } {
  const fields = new Map(input.fields.map((f) => [f.key, f]));
  for (const key of [...Object.keys(input.submitted), ...(input.clear ?? [])]) {
    if (!fields.has(key)) throw new AppError("INVALID_INPUT", `“${key}” is not a setting of this server.`);
  }
  const upserts: StoredValue[] = [];
  const removals = new Set(input.clear ?? []);
  for (const [key, raw] of Object.entries(input.submitted)) {
    const field = fields.get(key)!;
    const value = field.secret ? raw : raw.trim();
    if (value === "") {
      if (!field.secret) removals.add(key);
      continue;
    }
    const problem = validateFieldValue(field, value);
    if (problem) throw new AppError("INVALID_INPUT", problem);
    removals.delete(key);
    upserts.push(
      field.secret ? { key, value: getCipher().encrypt(value), encrypted: true } : { key, value, encrypted: false },
    );
  }

  if (input.requireAll) {
    const after: Record<string, string> = {};
    for (const v of input.stored) if (!removals.has(v.key)) after[v.key] = "set";
    for (const v of upserts) after[v.key] = "set";
    const tier = input.fields[0]?.tier ?? "team";
    const missing = missingRequiredFields(input.fields, tier === "team" ? after : {}, tier === "user" ? after : {});
    if (missing.length > 0) {
      const names = missing.map((k) => fields.get(k)?.label || k);
      throw new AppError(
        "INVALID_INPUT",
        `Fill in the required setting${names.length > 1 ? "s" : ""}: ${names.join(", ")}.`,
      );
    }
  }
  return { upserts, removals: [...removals] };
}
