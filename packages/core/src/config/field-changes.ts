import type { ConfigField } from "./types";

export interface FieldChanges {
  /** Keys whose stored values are dropped: fields removed, or moved between the team and member tiers. */
  dropped: string[];
  /** Keys kept whose secrecy changed: their stored values are sealed or unsealed to match. */
  resealed: { key: string; secret: boolean }[];
  /** Keys that are new (or moved tier) and required with no default: whoever lacks one must fill it in. */
  newlyRequired: string[];
}

/**
 * What editing a template's settings schema does to the values already stored. A field that keeps its key and
 * tier keeps its values (label, type, description and default may change freely); a removed field's values are
 * dropped; a field moved to the other tier is a new field there. Pure: the console applies the result.
 */
export function planFieldChanges(before: readonly ConfigField[], after: readonly ConfigField[]): FieldChanges {
  const old = new Map(before.map((f) => [f.key, f]));
  const next = new Map(after.map((f) => [f.key, f]));
  const dropped: string[] = [];
  const resealed: { key: string; secret: boolean }[] = [];
  const newlyRequired: string[] = [];
  for (const f of before) {
    const n = next.get(f.key);
    if (!n || n.tier !== f.tier) dropped.push(f.key);
    else if (n.secret !== f.secret) resealed.push({ key: f.key, secret: n.secret });
  }
  for (const f of after) {
    const o = old.get(f.key);
    const isNew = !o || o.tier !== f.tier || !o.required;
    if (isNew && f.required && (f.defaultValue === undefined || f.defaultValue === null || f.defaultValue === ""))
      newlyRequired.push(f.key);
  }
  return { dropped, resealed, newlyRequired };
}
