"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { slugify } from "@switchboard/core/accounts";
import { namespaceToolName } from "@switchboard/core/names";
import { Field } from "~/components/field";
import { useVisited } from "~/components/use-visited";
import { ConnectionTest, type TestOutcome } from "./connection-test";
import { useTRPC } from "~/trpc/react";
import { SettingFieldset } from "./setting-fieldset";
import {
  blankSetting,
  KINDS,
  problemsOf,
  toTemplate,
  type FieldDraft,
  type TemplateDraftValue,
  type TemplateSubmit,
  type Transport,
} from "./template-draft";
import { FormError } from "~/components/ui/form-error";

export type { FieldDraft, TemplateDraftValue, TemplateSubmit } from "./template-draft";

/** Field errors come back keyed by path, e.g. `template.fields.1.key`. */
function useFieldErrors(error: unknown) {
  const fields =
    (error as { data?: { fieldErrors?: Record<string, string[]> | null } } | null)?.data?.fieldErrors ?? {};
  return (path: string) => fields[`template.${path}`]?.[0];
}

type SubmitHandler = (template: TemplateSubmit) => void;

/**
 * A server's definition: transport, command or URL, settings schema, with "Test connection". Without `onSubmit`
 * it adds a template to the catalogue; the install flow and the edit forms pass their own submit.
 */
export function TemplateForm({
  teamId,
  onDone,
  initial,
  title = "Add a server",
  submitLabel = "Add to catalogue",
  onSubmit,
  pending,
  error,
  lockSlug,
  lockName,
  takenSlugs,
  onChange,
  onTested,
  children,
}: {
  teamId: string;
  onDone: () => void;
  initial?: TemplateDraftValue;
  title?: string;
  submitLabel?: string;
  onSubmit?: SubmitHandler;
  pending?: boolean;
  error?: unknown;
  /** Editing an installation: the slug prefixes its members' tool names and stays. */
  lockSlug?: boolean;
  /**
   * The definition keeps its catalogue name: not shown (an installation's edit names the installation instead,
   * and saves no template name).
   */
  lockName?: boolean;
  /** Slugs already in the catalogue: a new definition may not reuse one. */
  takenSlugs?: string[];
  /** Told of every change (the edit form compares the URL with the one its connection test tried). */
  onChange?: () => void;
  /** Told of each "Test connection" result (the edit form warns before saving a launch whose test failed). */
  onTested?: (outcome: TestOutcome) => void;
  /** Extra form content above the buttons (an installation's name, team values for new settings). */
  children?: React.ReactNode | ((fields: FieldDraft[]) => React.ReactNode);
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState(initial?.name ?? "");
  const [slug, setSlug] = useState(initial?.slug ?? "");
  // A definition that arrives with a slug keeps it; otherwise the slug follows the name until it is edited.
  const [slugTouched, setSlugTouched] = useState(Boolean(initial?.slug));
  // Errors show once a field was left or a submit was tried, and go as soon as the value is fixed.
  const { visited, leave } = useVisited();
  const [tried, setTried] = useState(false);
  // A server error for a field goes once that field is edited (it described the value that was sent).
  const [edited, setEdited] = useState<Set<string>>(new Set());
  const [description, setDescription] = useState(initial?.description ?? "");
  const [transport, setTransport] = useState<Transport>(initial?.transport ?? "stdio");
  const [command, setCommand] = useState(initial?.command ?? "");
  const [args, setArgs] = useState((initial?.args ?? []).join("\n"));
  const [url, setUrl] = useState(initial?.url ?? "");
  const [oauth, setOauth] = useState(initial?.oauth ?? false);
  const [fields, setFields] = useState<FieldDraft[]>(
    (initial?.fields ?? []).map((f) => ({
      key: f.key,
      tier: f.tier,
      kind: f.kind,
      type: f.type,
      required: f.required,
      secret: f.secret,
      defaultValue: f.defaultValue ?? "",
      description: f.description,
      optionValues: f.optionValues,
    })),
  );
  const create = useMutation(
    trpc.catalogue.create.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries(trpc.catalogue.pathFilter());
        onDone();
      },
    }),
  );
  const shownError = onSubmit ? error : create.error;
  const serverErr = useFieldErrors(shownError);
  const current = () => toTemplate({ name, slug, description, transport, command, args, url, oauth, fields });
  const problems = problemsOf(current(), { lockSlug, takenSlugs });
  const err = (path: string) =>
    ((tried || visited.has(path)) && problems[path]) || (edited.has(path) ? undefined : serverErr(path));
  const touch = (path: string) => {
    setEdited((s) => (s.has(path) ? s : new Set(s).add(path)));
    onChange?.();
  };
  const update = (i: number, patch: Partial<FieldDraft>) => {
    if (patch.key !== undefined) touch(`fields.${i}.key`);
    else onChange?.();
    setFields((fs) => fs.map((f, j) => (j === i ? { ...f, ...patch } : f)));
  };
  const formRef = useRef<HTMLFormElement>(null);

  function submit(e: React.FormEvent) {
    e.preventDefault();
    setTried(true);
    if (Object.keys(problems).length > 0) {
      // Nothing is sent; the first field in error takes the focus and its message is read as its description.
      requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    setEdited(new Set());
    if (onSubmit) onSubmit(current());
    else create.mutate({ teamId, template: current() });
  }

  return (
    <form className="card stack" aria-label={title} onSubmit={submit} noValidate ref={formRef}>
      <h2>{title}</h2>
      {!(lockName && lockSlug) && (
        <div className="row" style={{ alignItems: "flex-start" }}>
          {!lockName && (
            <Field label="Name" error={err("name")} style={{ flex: 2 }}>
              {(p) => (
                <input
                  {...p}
                  value={name}
                  onChange={(e) => {
                    setName(e.target.value);
                    touch("name");
                    if (!slugTouched) {
                      setSlug(slugify(e.target.value));
                      touch("slug");
                    }
                  }}
                  onBlur={leave("name")}
                  required
                />
              )}
            </Field>
          )}
          {!lockSlug && (
            <Field label="Slug (tool prefix)" error={err("slug")} style={{ flex: 1 }}>
              {(p) => (
                <input
                  {...p}
                  value={slug}
                  onChange={(e) => {
                    setSlug(e.target.value);
                    setSlugTouched(true);
                    touch("slug");
                  }}
                  onBlur={leave("slug")}
                  required
                />
              )}
            </Field>
          )}
        </div>
      )}
      {!lockSlug && (
        <p className="muted small" data-testid="slug-preview" aria-live="polite" style={{ margin: 0 }}>
          {current().slug && !problems.slug ? (
            <>
              Tools will be named <code>{namespaceToolName(current().slug, "tool")}</code>.
            </>
          ) : (
            "The slug prefixes the server's tool names."
          )}
        </p>
      )}
      <label>
        Description
        <input
          value={description}
          onChange={(e) => {
            setDescription(e.target.value);
            onChange?.();
          }}
        />
      </label>
      <fieldset className="row" style={{ border: "none", padding: 0 }}>
        <legend className="muted" style={{ marginBottom: ".3rem" }}>
          Transport
        </legend>
        {(["stdio", "streamable_http", "sse"] as const).map((t) => (
          <label key={t} style={{ flexDirection: "row", alignItems: "center" }}>
            <input
              type="radio"
              name="transport"
              checked={transport === t}
              onChange={() => {
                setTransport(t);
                onChange?.();
                setFields((fs) => fs.map((f) => ({ ...f, kind: KINDS[t][0]! })));
              }}
            />
            {t === "stdio" ? "Local command (stdio)" : t === "sse" ? "Remote, legacy SSE" : "Remote, Streamable HTTP"}
          </label>
        ))}
      </fieldset>
      {transport === "stdio" ? (
        <div className="row" style={{ alignItems: "flex-start" }}>
          <Field label="Command" error={err("command")} style={{ flex: 1 }}>
            {(p) => (
              <input
                {...p}
                value={command}
                onChange={(e) => {
                  setCommand(e.target.value);
                  touch("command");
                }}
                onBlur={leave("command")}
                placeholder="npx"
              />
            )}
          </Field>
          <label style={{ flex: 2 }}>
            Arguments, one per line (use {"{{name}}"} for a setting)
            <textarea
              rows={3}
              value={args}
              onChange={(e) => {
                setArgs(e.target.value);
                onChange?.();
              }}
              placeholder={"-y\n@modelcontextprotocol/server-everything"}
            />
          </label>
        </div>
      ) : (
        <div className="row" style={{ alignItems: "flex-end" }}>
          <Field label="URL" error={err("url")} style={{ flex: 1 }}>
            {(p) => (
              <input
                {...p}
                value={url}
                onChange={(e) => {
                  setUrl(e.target.value);
                  touch("url");
                }}
                onBlur={leave("url")}
                placeholder="https://mcp.example.com/mcp"
              />
            )}
          </Field>
          <label style={{ flexDirection: "row", alignItems: "center" }}>
            <input
              type="checkbox"
              checked={oauth}
              onChange={(e) => {
                setOauth(e.target.checked);
                onChange?.();
              }}
            />{" "}
            Requires OAuth
          </label>
        </div>
      )}
      <h3 style={{ margin: ".5rem 0 0" }}>Settings</h3>
      {fields.length === 0 && (
        <p className="muted">
          No settings. Add one for each argument, environment variable, header or query parameter the team or members
          provide.
        </p>
      )}
      {fields.map((f, i) => (
        <SettingFieldset
          key={i}
          field={f}
          index={i}
          transport={transport}
          err={err}
          leave={leave}
          update={(patch) => update(i, patch)}
          onRemove={() => setFields((fs) => fs.filter((_, j) => j !== i))}
        />
      ))}
      <div>
        <button type="button" className="secondary" onClick={() => setFields((fs) => [...fs, blankSetting(transport)])}>
          Add a setting
        </button>
      </div>
      <ConnectionTest teamId={teamId} template={current} fields={fields} onResult={onTested} />
      {typeof children === "function" ? children(fields) : children}
      {Boolean(shownError) && <FormError error={shownError} />}
      <div className="row" style={{ justifyContent: "flex-end" }}>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
        <button type="submit" disabled={onSubmit ? pending : create.isPending}>
          {(onSubmit ? pending : create.isPending) ? "Saving…" : submitLabel}
        </button>
      </div>
    </form>
  );
}
