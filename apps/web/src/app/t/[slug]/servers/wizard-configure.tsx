"use client";

import { useState } from "react";
import { slugProblem } from "@switchboard/core/accounts";
import { unfilledRequired } from "@switchboard/core/config";
import { namespaceToolName } from "@switchboard/core/names";
import { Field } from "~/components/field";
import { useVisited } from "~/components/use-visited";
import type { WizardServer } from "./wizard-server";

export interface TeamSettings {
  name: string;
  slug: string;
  values: Record<string, string>;
  requestLogging: boolean;
}

/** Why the installation's name is not acceptable, or undefined (the API says the same with `.min(2)`). */
const nameProblem = (name: string) =>
  name.trim().length < 2 ? "Give the server a name (at least 2 characters)." : undefined;

/**
 * The wizard's team settings: the installation's name and slug (from the definition, previewed as a tool name),
 * the team values and the request log. Errors show once a field was left or Review
 * was pressed, and clear as soon as the value is fixed; nothing is sent from this step.
 */
export function ConfigureStep({
  server,
  initial,
  onBack,
  onNext,
}: {
  server: WizardServer;
  initial: TeamSettings;
  onBack: (now: TeamSettings) => void;
  onNext: (settings: TeamSettings) => void;
}) {
  const [name, setName] = useState(initial.name);
  const [slug, setSlug] = useState(initial.slug);
  const [values, setValues] = useState(initial.values);
  const [requestLogging, setRequestLogging] = useState(initial.requestLogging);
  const { visited, leave } = useVisited();
  const [tried, setTried] = useState(false);
  const shown = (key: string, problem: string | undefined | null) =>
    (tried || visited.has(key)) && problem ? problem : undefined;
  const teamFields = server.fields.filter((f) => f.tier === "team");
  const memberFields = server.fields.filter((f) => f.tier === "user");
  const missing = unfilledRequired(teamFields, values);
  const now = (): TeamSettings => ({ name, slug, values, requestLogging });
  const valid = !nameProblem(name) && !slugProblem(slug) && missing.length === 0;

  return (
    <form
      className="stack"
      aria-label="Team settings"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        setTried(true);
        if (valid) onNext(now());
        else requestAnimationFrame(() => e.currentTarget?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      }}
    >
      <div className="row" style={{ alignItems: "flex-start", flexWrap: "wrap" }}>
        <Field label="Name" error={shown("name", nameProblem(name))} style={{ flex: "2 1 12rem" }}>
          {(p) => (
            <input
              {...p}
              value={name}
              onBlur={leave("name")}
              onChange={(e) => {
                setName(e.target.value);
              }}
            />
          )}
        </Field>
        <Field label="Slug (tool prefix)" error={shown("slug", slugProblem(slug))} style={{ flex: "1 1 10rem" }}>
          {(p) => (
            <input
              {...p}
              value={slug}
              onBlur={leave("slug")}
              onChange={(e) => {
                setSlug(e.target.value);
              }}
            />
          )}
        </Field>
      </div>
      <p className="muted small" data-testid="install-slug-preview" aria-live="polite" style={{ margin: 0 }}>
        {slugProblem(slug) ? (
          "The slug prefixes the server's tool names."
        ) : (
          <>
            Tools will be named <code>{namespaceToolName(slug, "tool")}</code>.
          </>
        )}
      </p>
      {teamFields.length === 0 && <p className="muted">This server has no team settings.</p>}
      {teamFields.map((f) => (
        <Field
          key={f.key}
          label={`${f.label || f.key}${f.required ? " (required)" : ""}`}
          error={shown(`value:${f.key}`, missing.includes(f) ? `${f.label || f.key} is required.` : undefined)}
        >
          {(p) => (
            <>
              <input
                {...p}
                type={f.secret ? "password" : "text"}
                autoComplete={f.secret ? "new-password" : "off"}
                value={values[f.key] ?? ""}
                placeholder={f.defaultValue ?? ""}
                onBlur={leave(`value:${f.key}`)}
                onChange={(e) => setValues((v) => ({ ...v, [f.key]: e.target.value }))}
              />
              {f.description && <span className="muted small">{f.description}</span>}
              {f.secret && <span className="muted small">Stored encrypted and never shown again in clear.</span>}
            </>
          )}
        </Field>
      ))}
      {memberFields.length > 0 && (
        <p className="muted">
          Each member fills in:{" "}
          {memberFields.map((f) => `${f.label || f.key}${f.required ? " (required)" : ""}`).join(", ")}. Until they do,
          their instance waits in “Needs your settings”.
        </p>
      )}
      <label style={{ flexDirection: "row", alignItems: "center" }}>
        <input type="checkbox" checked={requestLogging} onChange={(e) => setRequestLogging(e.target.checked)} /> Keep a
        request log
      </label>
      <div className="row" style={{ justifyContent: "flex-end" }}>
        <button type="button" className="secondary" onClick={() => onBack(now())}>
          Back
        </button>
        <button type="submit">Review</button>
      </div>
    </form>
  );
}
