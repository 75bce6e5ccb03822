"use client";

import { useState } from "react";
import { Field } from "~/components/field";

export interface SettingField {
  key: string;
  label: string;
  description: string;
  type: "string" | "number" | "boolean" | "url";
  required: boolean;
  secret: boolean;
  defaultValue: string | null;
  set: boolean;
  masked: string | null;
}

/**
 * A form for configuration values. Secrets are write-only: the field starts empty, shows the masked stored
 * value as a hint, and an empty secret keeps what is stored. With `highlightMissing`, required fields without
 * a value are marked.
 */
export function SettingsForm({
  fields,
  submitLabel,
  pending,
  highlightMissing,
  onSubmit,
  name,
}: {
  fields: SettingField[];
  submitLabel: string;
  pending: boolean;
  highlightMissing?: boolean;
  onSubmit: (values: Record<string, string>) => void;
  name: string;
}) {
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(fields.map((f) => [f.key, f.secret ? "" : (f.masked ?? "")])),
  );
  if (fields.length === 0) return <p className="muted">No settings to fill in.</p>;
  return (
    <form
      className="stack"
      aria-label={name}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit(values);
      }}
    >
      {fields.map((f) => {
        const missing = highlightMissing && f.required && !f.set && !values[f.key];
        const hint = f.secret && f.set ? `${f.masked} — leave empty to keep` : (f.defaultValue ?? "");
        return (
          <Field key={f.key} label={`${f.label}${f.required ? " (required)" : ""}`} error={missing ? "Required to start this server." : undefined}>
            {(p) => (
              <>
                <input
                  {...p}
                  type={f.secret ? "password" : f.type === "number" ? "number" : f.type === "url" ? "url" : "text"}
                  autoComplete={f.secret ? "new-password" : "off"}
                  className={missing ? "missing" : undefined}
                  value={values[f.key] ?? ""}
                  placeholder={hint}
                  onChange={(e) => setValues((v) => ({ ...v, [f.key]: e.target.value }))}
                />
                {f.description && <span className="muted small">{f.description}</span>}
              </>
            )}
          </Field>
        );
      })}
      <div>
        <button type="submit" disabled={pending}>{pending ? "Saving…" : submitLabel}</button>
      </div>
    </form>
  );
}
