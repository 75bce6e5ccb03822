"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { OAuthButton } from "~/components/console/oauth-button";
import { OAuthRedirectUri } from "~/components/console/oauth-redirect-uri";
import { Field } from "~/components/field";
import { errorMessage } from "~/lib/errors";
import { useTRPC } from "~/trpc/react";
import { TemplateForm, type TemplateDraftValue } from "../catalogue/template-form";
import { ImportForm, PresetPicker } from "./install-sources";

type Source = "preset" | "catalogue" | "import" | "custom";
const SOURCES: { id: Source; label: string }[] = [
  { id: "preset", label: "A preset" },
  { id: "catalogue", label: "Your team's catalogue" },
  { id: "import", label: "Import (server.json or registry)" },
  { id: "custom", label: "Custom" },
];

type Step = "template" | "define" | "configure" | "oauth" | "confirm" | "connect";

const STEP_LABEL: Record<Step, string> = {
  template: "Source",
  define: "Definition",
  configure: "Team settings",
  oauth: "OAuth client",
  confirm: "Confirm",
  connect: "Connect your account",
};

const slugError = (s: string) =>
  /^[a-z0-9]+(-[a-z0-9]+)*$/.test(s) && s.length >= 2 && s.length <= 40
    ? undefined
    : "Use 2–40 lowercase letters, digits and single dashes.";

/**
 * Pick a template, fill the team settings (secrets write-only), confirm; the worker then creates the instances.
 * An OAuth template adds an optional pre-registered client before confirming, and a last step where the admin
 * connects their own account once the worker has created their instance.
 */
export function InstallWizard({
  teamId,
  slug: teamSlug,
  onCancel,
}: {
  teamId: string;
  slug: string;
  onCancel: () => void;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const templates = useInfiniteQuery(
    trpc.catalogue.list.infiniteQueryOptions({ teamId, limit: 100 }, { getNextPageParam: (last) => last.nextCursor }),
  );
  const all = useMemo(() => templates.data?.pages.flatMap((p) => p.items) ?? [], [templates.data]);
  const [step, setStep] = useState<Step>("template");
  const [templateId, setTemplateId] = useState("");
  const [slug, setSlug] = useState("");
  const [name, setName] = useState("");
  const [requestLogging, setRequestLogging] = useState(true);
  const [values, setValues] = useState<Record<string, string>>({});
  const [touched, setTouched] = useState(false);
  const [oauthClientId, setOAuthClientId] = useState("");
  const [oauthSecret, setOAuthSecret] = useState("");
  const [installed, setInstalled] = useState<{ id: string; name: string } | null>(null);
  const [source, setSource] = useState<Source | null>(null);
  const [draft, setDraft] = useState<{ value: TemplateDraftValue; notes: string[]; key: number } | null>(null);
  const [created, setCreated] = useState<(typeof all)[number] | null>(null);
  const chosen = source ?? (templates.isSuccess && all.length === 0 ? "preset" : "catalogue");
  const template = all.find((t) => t.id === templateId) ?? (created?.id === templateId ? created : undefined);
  const defining = draft !== null;
  const steps: Step[] = [
    "template",
    ...(defining ? (["define"] as const) : []),
    "configure",
    ...(template?.oauth ? (["oauth"] as const) : []),
    "confirm",
    ...(template?.oauth ? (["connect"] as const) : []),
  ];
  const chooseTemplate = (t: (typeof all)[number]) => {
    setTemplateId(t.id);
    setSlug(t.slug);
    setName(t.name);
    setValues({});
    setOAuthClientId("");
    setOAuthSecret("");
  };
  const define = (value: TemplateDraftValue, notes: string[] = []) => {
    setDraft({ value, notes, key: Date.now() });
    setStep("define");
  };
  const addTemplate = useMutation(
    trpc.catalogue.create.mutationOptions({
      onSuccess: async (t) => {
        setCreated(t);
        chooseTemplate(t);
        await queryClient.invalidateQueries(trpc.catalogue.pathFilter());
        setStep("configure");
      },
    }),
  );
  const teamFields = template?.fields.filter((f) => f.tier === "team") ?? [];
  const memberFields = template?.fields.filter((f) => f.tier === "user") ?? [];
  const missing = teamFields.filter((f) => f.required && !f.defaultValue && !values[f.key]);
  // Focus follows the wizard: into it when it opens, to the new step's heading when it moves, so keyboard and
  // screen-reader users start each step at its top instead of on a button that no longer exists.
  const stepHeading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    stepHeading.current?.focus();
  }, [step]);

  const create = useMutation(
    trpc.installation.create.mutationOptions({
      onSuccess: async (installation) => {
        await queryClient.invalidateQueries(trpc.installation.pathFilter());
        await queryClient.invalidateQueries(trpc.instance.pathFilter());
        if (installation.template.oauth) {
          setInstalled({ id: installation.id, name: installation.name });
          setStep("connect");
        } else {
          router.push(`/t/${teamSlug}/installations/${installation.id}`);
        }
      },
    }),
  );

  return (
    <section className="card stack" aria-labelledby="wizard-title">
      <h2 id="wizard-title">Install a server</h2>
      <ol className="row muted small" aria-label="Steps" style={{ listStyle: "none", padding: 0, margin: 0 }}>
        {steps.map((s, i) => (
          <li key={s} aria-current={s === step ? "step" : undefined} style={{ fontWeight: s === step ? 700 : 400 }}>
            {i + 1}. {STEP_LABEL[s]}
          </li>
        ))}
      </ol>
      <h3 ref={stepHeading} tabIndex={-1} className="step-heading" data-testid="wizard-step-heading">
        Step {steps.indexOf(step) + 1} of {steps.length}: {STEP_LABEL[step]}
      </h3>

      {step === "template" && (
        <fieldset className="row" style={{ border: "none", padding: 0 }}>
          <legend className="muted" style={{ marginBottom: ".3rem" }}>
            Where the server comes from
          </legend>
          {SOURCES.map((x) => (
            <label key={x.id} style={{ flexDirection: "row", alignItems: "center" }}>
              <input type="radio" name="source" checked={chosen === x.id} onChange={() => setSource(x.id)} /> {x.label}
            </label>
          ))}
        </fieldset>
      )}
      {step === "template" && chosen === "preset" && (
        <PresetPicker
          teamId={teamId}
          existing={all}
          onPick={define}
          onUseExisting={(t) => {
            chooseTemplate(t);
            setDraft(null);
            setStep("configure");
          }}
          onCancel={onCancel}
        />
      )}
      {step === "template" && chosen === "import" && (
        <ImportForm teamId={teamId} onImported={define} onCancel={onCancel} />
      )}
      {step === "template" && chosen === "custom" && (
        <div className="row" style={{ justifyContent: "flex-end" }}>
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
          <button
            type="button"
            onClick={() =>
              define({
                slug: "",
                name: "",
                description: "",
                transport: "streamable_http",
                args: [],
                oauth: false,
                fields: [],
              })
            }
          >
            Define a server
          </button>
        </div>
      )}
      {step === "define" && draft && (
        <div className="stack">
          {draft.notes.length > 0 && (
            <ul className="muted small" aria-label="Import notes" style={{ margin: 0 }}>
              {draft.notes.map((n) => (
                <li key={n}>{n}</li>
              ))}
            </ul>
          )}
          <TemplateForm
            key={draft.key}
            teamId={teamId}
            title="Check the definition"
            submitLabel="Save to catalogue and continue"
            initial={draft.value}
            pending={addTemplate.isPending}
            error={addTemplate.error}
            onDone={() => setStep("template")}
            onSubmit={(t) => addTemplate.mutate({ teamId, template: t })}
          />
          <p className="muted small" style={{ margin: 0 }}>
            The definition is saved to your team&apos;s catalogue, where you can install it again or edit it.
          </p>
        </div>
      )}

      {step === "template" &&
        chosen === "catalogue" &&
        (templates.isPending ? (
          <div className="skeleton" aria-busy="true" />
        ) : templates.isError ? (
          <p className="error" role="alert">
            {errorMessage(templates.error)}
          </p>
        ) : all.length === 0 ? (
          <p className="empty">
            The catalogue is empty: pick a preset, import a server.json, or define a custom server.
          </p>
        ) : (
          <form
            className="stack"
            onSubmit={(e) => {
              e.preventDefault();
              if (template) setStep("configure");
            }}
          >
            <label>
              Template
              <select
                value={templateId}
                required
                onChange={(e) => {
                  const t = all.find((x) => x.id === e.target.value);
                  setDraft(null);
                  if (t) chooseTemplate(t);
                  else setTemplateId("");
                }}
              >
                <option value="">Choose a server…</option>
                {all.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name} ({t.slug})
                  </option>
                ))}
              </select>
            </label>
            {template?.description && (
              <p className="muted" style={{ margin: 0 }}>
                {template.description}
              </p>
            )}
            <div className="row" style={{ justifyContent: "flex-end" }}>
              <button type="button" className="secondary" onClick={onCancel}>
                Cancel
              </button>
              <button type="submit" disabled={!template}>
                Next
              </button>
            </div>
          </form>
        ))}

      {step === "configure" && template && (
        <form
          className="stack"
          aria-label="Team settings"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            setTouched(true);
            if (!slugError(slug) && name.trim().length >= 2 && missing.length === 0)
              setStep(template.oauth ? "oauth" : "confirm");
          }}
        >
          <div className="row" style={{ alignItems: "flex-start" }}>
            <Field
              label="Name"
              error={touched && name.trim().length < 2 ? "Give the server a name." : undefined}
              style={{ flex: 2 }}
            >
              {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} />}
            </Field>
            <Field label="Slug (tool prefix)" error={touched ? slugError(slug) : undefined} style={{ flex: 1 }}>
              {(p) => <input {...p} value={slug} onChange={(e) => setSlug(e.target.value)} />}
            </Field>
          </div>
          {teamFields.length === 0 && <p className="muted">This server has no team settings.</p>}
          {teamFields.map((f) => (
            <Field
              key={f.key}
              label={`${f.label || f.key}${f.required ? " (required)" : ""}`}
              error={touched && missing.includes(f) ? "Required." : undefined}
            >
              {(p) => (
                <>
                  <input
                    {...p}
                    type={f.secret ? "password" : "text"}
                    autoComplete={f.secret ? "new-password" : "off"}
                    value={values[f.key] ?? ""}
                    placeholder={f.defaultValue ?? ""}
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
              {memberFields.map((f) => `${f.label || f.key}${f.required ? " (required)" : ""}`).join(", ")}. Until they
              do, their instance waits in “Needs your settings”.
            </p>
          )}
          <label style={{ flexDirection: "row", alignItems: "center" }}>
            <input type="checkbox" checked={requestLogging} onChange={(e) => setRequestLogging(e.target.checked)} />{" "}
            Keep a request log
          </label>
          <div className="row" style={{ justifyContent: "flex-end" }}>
            <button type="button" className="secondary" onClick={() => setStep(defining ? "define" : "template")}>
              Back
            </button>
            <button type="submit">Review</button>
          </div>
        </form>
      )}

      {step === "oauth" && template && (
        <form
          className="stack"
          aria-label="OAuth client"
          onSubmit={(e) => {
            e.preventDefault();
            setStep("confirm");
          }}
        >
          <p className="muted">
            {template.name} signs members in with OAuth; each member connects their own account. Optional: if the
            provider does not allow dynamic client registration, register a client there with this redirect URI and
            enter its ID and secret. You can change it later in the installation&apos;s Settings.
          </p>
          <OAuthRedirectUri teamId={teamId} />
          <Field label="Client ID (optional)">
            {(p) => (
              <input
                {...p}
                value={oauthClientId}
                autoComplete="off"
                placeholder="leave empty to register dynamically"
                onChange={(e) => setOAuthClientId(e.target.value)}
              />
            )}
          </Field>
          <Field label="Client secret (optional)">
            {(p) => (
              <>
                <input
                  {...p}
                  type="password"
                  autoComplete="new-password"
                  value={oauthSecret}
                  disabled={!oauthClientId.trim()}
                  onChange={(e) => setOAuthSecret(e.target.value)}
                />
                <span className="muted small">Stored encrypted and never shown again in clear.</span>
              </>
            )}
          </Field>
          <div className="row" style={{ justifyContent: "flex-end" }}>
            <button type="button" className="secondary" onClick={() => setStep("configure")}>
              Back
            </button>
            <button type="submit">Review</button>
          </div>
        </form>
      )}

      {step === "confirm" && template && (
        <div className="stack">
          <table>
            <tbody>
              <tr>
                <th scope="row">Server</th>
                <td>
                  {name} <code>{slug}</code> from {template.name}
                </td>
              </tr>
              {teamFields.map((f) => (
                <tr key={f.key}>
                  <th scope="row">{f.label || f.key}</th>
                  <td>
                    {values[f.key] ? (
                      f.secret ? (
                        "•••••• (secret)"
                      ) : (
                        values[f.key]
                      )
                    ) : (
                      <span className="muted">{f.defaultValue ? `default: ${f.defaultValue}` : "not set"}</span>
                    )}
                  </td>
                </tr>
              ))}
              <tr>
                <th scope="row">Request log</th>
                <td>{requestLogging ? "on" : "off"}</td>
              </tr>
              {template.oauth && (
                <tr>
                  <th scope="row">OAuth client</th>
                  <td>
                    {oauthClientId.trim() ? (
                      <>
                        <code>{oauthClientId.trim()}</code>
                        {oauthSecret ? " with a secret" : " (public, no secret)"}
                      </>
                    ) : (
                      "registered dynamically"
                    )}
                  </td>
                </tr>
              )}
            </tbody>
          </table>
          <p className="muted">
            Every member gets their own instance, which starts right away (or waits for their personal settings).
          </p>
          {create.isError && (
            <p className="error" role="alert">
              {errorMessage(create.error)}
            </p>
          )}
          <div className="row" style={{ justifyContent: "flex-end" }}>
            <button type="button" className="secondary" onClick={() => setStep(template.oauth ? "oauth" : "configure")}>
              Back
            </button>
            <button
              type="button"
              disabled={create.isPending}
              onClick={() =>
                create.mutate({
                  teamId,
                  templateId: template.id,
                  slug,
                  name,
                  requestLogging,
                  values: Object.fromEntries(Object.entries(values).filter(([, v]) => v !== "")),
                  ...(template.oauth && oauthClientId.trim()
                    ? {
                        oauthClient: {
                          clientId: oauthClientId.trim(),
                          ...(oauthSecret ? { clientSecret: oauthSecret } : {}),
                        },
                      }
                    : {}),
                })
              }
            >
              {create.isPending ? "Installing…" : "Install"}
            </button>
          </div>
        </div>
      )}

      {step === "connect" && installed && (
        <ConnectOwnInstance
          teamId={teamId}
          teamSlug={teamSlug}
          installation={installed}
          onDone={() => router.push(`/t/${teamSlug}/installations/${installed.id}`)}
        />
      )}
    </section>
  );
}

/**
 * The wizard's last step for an OAuth server: waits until the worker has created the admin's own instance (live
 * updates refetch it; a poll covers a missed event) and offers the Connect button for it.
 */
function ConnectOwnInstance({
  teamId,
  teamSlug,
  installation,
  onDone,
}: {
  teamId: string;
  teamSlug: string;
  installation: { id: string; name: string };
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const mine = useQuery(
    trpc.instance.mineOf.queryOptions(
      { teamId, installationId: installation.id },
      { refetchInterval: (q) => (q.state.data?.instance ? false : 1_000) },
    ),
  );
  const instance = mine.data?.instance;
  return (
    <div className="stack" data-testid="wizard-connect">
      <p role="status">
        {installation.name} is installed. It signs in with OAuth, so every member connects their own account.
      </p>
      {mine.isError ? (
        <p className="error" role="alert">
          {errorMessage(mine.error)}
        </p>
      ) : !instance ? (
        <p className="muted" aria-busy="true">
          Creating your instance…
        </p>
      ) : instance.status === "awaiting_user_config" ? (
        <p>
          Fill in your personal settings on <Link href={`/t/${teamSlug}/my-servers`}>My servers</Link> first, then
          connect your account there.
        </p>
      ) : (
        <div className="row">
          <OAuthButton teamId={teamId} instanceId={instance.id} name={installation.name} label="Connect your account" />
        </div>
      )}
      <p className="muted">
        Members connect their own accounts from <Link href={`/t/${teamSlug}/my-servers`}>My servers</Link>, where the
        server shows a Connect button until they do.
      </p>
      <div className="row" style={{ justifyContent: "flex-end" }}>
        <button type="button" className="secondary" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
