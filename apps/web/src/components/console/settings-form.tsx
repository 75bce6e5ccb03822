"use client";

import { useRef, useState } from "react";
import { unfilledRequired } from "@switchboard/core/config";
import { Field } from "~/components/field";
import { useVisited } from "~/components/use-visited";

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
 * value as a hint, and an empty secret keeps what is stored. With `highlightMissing`, a required field left
 * without a value is marked once it was visited; every one is after a refused submit. A fresh form shows no error.
 */
export function SettingsForm({
  fields,
  submitLabel,
  pending,
  highlightMissing,
  onSubmit,
  name,
  requireFilled,
}: {
  fields: SettingField[];
  submitLabel: string;
  pending: boolean;
  highlightMissing?: boolean;
  onSubmit: (values: Record<string, string>) => void;
  name: string;
  /** Refuse to submit while a required field has no value (stored, typed or default), naming the fields. */
  requireFilled?: boolean;
}) {
  const [refused, setRefused] = useState<string[]>([]);
  const { visited, leave } = useVisited();
  const formRef = useRef<HTMLFormElement>(null);
  const unfilled = (v: Record<string, string>) => unfilledRequired(fields, v);
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(fields.map((f) => [f.key, f.secret ? "" : (f.masked ?? "")])),
  );
  if (fields.length === 0) return <p className="muted">No settings to fill in.</p>;
  return (
    <form
      className="stack"
      aria-label={name}
      ref={formRef}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const missing = requireFilled ? unfilled(values) : [];
        setRefused(missing.map((f) => f.key));
        if (missing.length > 0) {
          // Focus the first empty required field; its error is read as its description.
          formRef.current?.querySelector<HTMLInputElement>(`[data-key="${CSS.escape(missing[0]!.key)}"]`)?.focus();
          return;
        }
        onSubmit(values);
      }}
    >
      {fields.map((f) => {
        const missing =
          unfilledRequired([f], values).length > 0 &&
          ((highlightMissing && visited.has(f.key)) || refused.includes(f.key));
        const hint = f.secret && f.set ? `${f.masked} — leave empty to keep` : (f.defaultValue ?? "");
        return (
          <Field
            key={f.key}
            label={`${f.label}${f.required ? " (required)" : ""}`}
            error={missing ? `${f.label} is required to start this server.` : undefined}
          >
            {(p) => (
              <>
                <input
                  {...p}
                  data-key={f.key}
                  type={f.secret ? "password" : f.type === "number" ? "number" : f.type === "url" ? "url" : "text"}
                  autoComplete={f.secret ? "new-password" : "off"}
                  className={missing ? "missing" : undefined}
                  value={values[f.key] ?? ""}
                  placeholder={hint}
                  onChange={(e) => setValues((v) => ({ ...v, [f.key]: e.target.value }))}
                  onBlur={leave(f.key)}
                />
                {f.description && <span className="muted small">{f.description}</span>}
              </>
            )}
          </Field>
        );
      })}
      {refused.length > 0 && unfilled(values).length > 0 && (
        <p className="error" role="alert" data-testid="settings-missing">
          Fill in {listNames(unfilled(values).map((f) => f.label))} before saving.
        </p>
      )}
      <div>
        <button type="submit" disabled={pending}>
          {pending ? "Saving…" : submitLabel}
        </button>
      </div>
    </form>
  );
}

function listNames(names: string[]): string {
  return names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}
