"use client";

import { Field } from "~/components/field";
import { KINDS, type FieldDraft, type Transport } from "./template-draft";

/** One setting of a definition: its name, who provides it, kind, type, whether required or secret, default. */
export function SettingFieldset({
  field: f,
  index: i,
  transport,
  err,
  leave,
  update,
  onRemove,
}: {
  field: FieldDraft;
  index: number;
  transport: Transport;
  /** The message for a path (`fields.0.key`) when it should show. */
  err: (path: string) => string | undefined;
  leave: (path: string) => (e: React.FocusEvent) => void;
  update: (patch: Partial<FieldDraft>) => void;
  onRemove: () => void;
}) {
  return (
    <fieldset
      key={i}
      className="stack"
      style={{ border: "1px solid var(--border)", borderRadius: 6, padding: ".75rem" }}
      aria-label={`Setting ${i + 1}`}
    >
      <div className="row" style={{ alignItems: "flex-start" }}>
        <Field label="Name" error={err(`fields.${i}.key`)} style={{ flex: 2 }}>
          {(p) => (
            <input
              {...p}
              value={f.key}
              onChange={(e) => update({ key: e.target.value })}
              onBlur={leave(`fields.${i}.key`)}
              placeholder={f.kind === "env" ? "API_KEY" : f.kind === "header" ? "X-Api-Key" : "name"}
            />
          )}
        </Field>
        <label>
          Provided by
          <select value={f.tier} onChange={(e) => update({ tier: e.target.value as FieldDraft["tier"] })}>
            <option value="team">team admin</option>
            <option value="user">each member</option>
          </select>
        </label>
        <Field label="Kind" error={err(`fields.${i}.kind`)}>
          {(p) => (
            <select {...p} value={f.kind} onChange={(e) => update({ kind: e.target.value as FieldDraft["kind"] })}>
              {KINDS[transport].map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          )}
        </Field>
        <label>
          Type
          <select value={f.type} onChange={(e) => update({ type: e.target.value as FieldDraft["type"] })}>
            {["string", "number", "boolean", "url"].map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        {f.kind === "arg" && (
          <label>
            Values starting with “-”
            <select
              value={f.optionValues ?? "refuse"}
              onChange={(e) => update({ optionValues: e.target.value as NonNullable<FieldDraft["optionValues"]> })}
            >
              <option value="refuse">Refuse (they would be read as options)</option>
              <option value="after_separator">Pass after “--” as plain arguments</option>
            </select>
          </label>
        )}
      </div>
      <div className="row" style={{ alignItems: "flex-start" }}>
        <label style={{ flexDirection: "row", alignItems: "center" }}>
          <input type="checkbox" checked={f.required} onChange={(e) => update({ required: e.target.checked })} />{" "}
          Required
        </label>
        <label style={{ flexDirection: "row", alignItems: "center" }}>
          <input
            type="checkbox"
            checked={f.secret}
            onChange={(e) => update({ secret: e.target.checked, defaultValue: e.target.checked ? "" : f.defaultValue })}
          />{" "}
          Secret
        </label>
        <Field label="Default" error={err(`fields.${i}.defaultValue`)} style={{ flex: 1 }}>
          {(p) => (
            <input
              {...p}
              value={f.defaultValue}
              disabled={f.secret}
              onChange={(e) => update({ defaultValue: e.target.value })}
            />
          )}
        </Field>
        <label style={{ flex: 2 }}>
          Description
          <input value={f.description} onChange={(e) => update({ description: e.target.value })} />
        </label>
        <button type="button" className="secondary" onClick={onRemove} aria-label={`Remove setting ${i + 1}`}>
          Remove
        </button>
      </div>
    </fieldset>
  );
}
