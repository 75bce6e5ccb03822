"use client";

import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useReducer, useRef } from "react";
import { OAuthRedirectUri } from "~/components/console/oauth-redirect-uri";
import { Field } from "~/components/field";
import { QueryState } from "~/components/ui/query-state";
import { useTRPC } from "~/trpc/react";
import { TemplateForm, type TemplateDraftValue } from "../catalogue/template-form";
import { ImportForm, PresetPicker } from "./install-sources";
import { ConfigureStep } from "./wizard-configure";
import { ConfirmStep } from "./wizard-confirm";
import { ConnectOwnInstance } from "./wizard-connect";
import { fromCatalogue, fromDefinition, type CatalogueItem, type WizardServer } from "./wizard-server";
import { INITIAL_WIZARD, SOURCES, STEP_LABEL, wizardReducer, type Step } from "./wizard-state";

/**
 * Pick a template, fill the team settings (secrets write-only), confirm; the worker then creates the instances.
 * Nothing is written before the last step: a server defined here (preset, import, custom) goes to the catalogue
 * together with its installation, so abandoning the wizard leaves nothing behind.
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
  const [state, dispatch] = useReducer(wizardReducer, INITIAL_WIZARD);
  const { step, templateId, server, settings, oauthClientId, oauthSecret, installed, source, draft } = state;
  const setStep = (next: Step) => dispatch({ type: "go", step: next });
  const chosen = source ?? (templates.isSuccess && all.length === 0 ? "preset" : "catalogue");
  const selected = all.find((t) => t.id === templateId);
  const defining = draft !== null;
  // While a definition is being checked its OAuth box decides the steps, so the count does not jump later.
  const oauth = server ? server.oauth : Boolean(draft?.value.oauth);
  const steps: Step[] = [
    "template",
    ...(defining ? (["define"] as const) : []),
    "configure",
    ...(oauth ? (["oauth"] as const) : []),
    "confirm",
    ...(oauth ? (["connect"] as const) : []),
  ];
  const chooseTemplate = (t: CatalogueItem) => dispatch({ type: "choose", templateId: t.id, server: fromCatalogue(t) });
  const define = (value: TemplateDraftValue, notes: string[] = []) =>
    dispatch({ type: "define", value, notes, key: Date.now() });
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
        await queryClient.invalidateQueries(trpc.catalogue.pathFilter());
        if (installation.template.oauth) {
          dispatch({ type: "installed", installation: { id: installation.id, name: installation.name } });
        } else {
          router.push(`/t/${teamSlug}/installations/${installation.id}`);
        }
      },
    }),
  );
  const oauthClient =
    server?.oauth && oauthClientId.trim() ? { clientId: oauthClientId.trim(), secret: oauthSecret } : null;
  const install = (s: WizardServer) =>
    create.mutate({
      teamId,
      ...(s.id ? { templateId: s.id } : { template: s.defined! }),
      slug: settings.slug,
      name: settings.name,
      requestLogging: settings.requestLogging,
      values: Object.fromEntries(Object.entries(settings.values).filter(([, v]) => v !== "")),
      ...(oauthClient
        ? {
            oauthClient: {
              clientId: oauthClient.clientId,
              ...(oauthClient.secret ? { clientSecret: oauthClient.secret } : {}),
            },
          }
        : {}),
    });

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
              <input
                type="radio"
                name="source"
                checked={chosen === x.id}
                onChange={() => dispatch({ type: "source", source: x.id })}
              />{" "}
              {x.label}
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
            submitLabel="Continue"
            initial={draft.value}
            takenSlugs={all.map((t) => t.slug)}
            onDone={() => dispatch({ type: "undefine" })}
            onSubmit={(t) => dispatch({ type: "defined", value: t, server: fromDefinition(t) })}
          />
          <p className="muted small" style={{ margin: 0 }}>
            Nothing is saved yet: the definition goes to your team&apos;s catalogue when you install, and you can
            install it again or edit it from there.
          </p>
        </div>
      )}

      {step === "template" && chosen === "catalogue" && (
        <QueryState
          query={templates}
          loading={<div className="skeleton" aria-busy="true" />}
          isEmpty={() => all.length === 0}
          empty={
            <p className="empty">
              The catalogue is empty: pick a preset, import a server.json, or define a custom server.
            </p>
          }
        >
          {() => (
            <form
              className="stack"
              onSubmit={(e) => {
                e.preventDefault();
                if (selected) setStep("configure");
              }}
            >
              <label>
                Template
                <select
                  value={templateId}
                  required
                  onChange={(e) => {
                    const t = all.find((x) => x.id === e.target.value);
                    if (t) chooseTemplate(t);
                    else dispatch({ type: "unchoose" });
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
              {selected?.description && (
                <p className="muted" style={{ margin: 0 }}>
                  {selected.description}
                </p>
              )}
              <div className="row" style={{ justifyContent: "flex-end" }}>
                <button type="button" className="secondary" onClick={onCancel}>
                  Cancel
                </button>
                <button type="submit" disabled={!selected}>
                  Next
                </button>
              </div>
            </form>
          )}
        </QueryState>
      )}

      {step === "configure" && server && (
        <ConfigureStep
          key={`${server.id ?? "new"}:${server.slug}`}
          server={server}
          initial={settings}
          onBack={(now) => dispatch({ type: "settings", settings: now, step: defining ? "define" : "template" })}
          onNext={(next) => dispatch({ type: "settings", settings: next, step: server.oauth ? "oauth" : "confirm" })}
        />
      )}

      {step === "oauth" && server && (
        <form
          className="stack"
          aria-label="OAuth client"
          onSubmit={(e) => {
            e.preventDefault();
            setStep("confirm");
          }}
        >
          <p className="muted">
            {server.name} signs members in with OAuth; each member connects their own account. Optional: if the provider
            does not allow dynamic client registration, register a client there with this redirect URI and enter its ID
            and secret. You can change it later in the installation&apos;s Settings.
          </p>
          <OAuthRedirectUri teamId={teamId} />
          <Field label="Client ID (optional)">
            {(p) => (
              <input
                {...p}
                value={oauthClientId}
                autoComplete="off"
                placeholder="leave empty to register dynamically"
                onChange={(e) => dispatch({ type: "oauthClient", clientId: e.target.value })}
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
                  onChange={(e) => dispatch({ type: "oauthClient", secret: e.target.value })}
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

      {step === "confirm" && server && (
        <ConfirmStep
          teamId={teamId}
          server={server}
          settings={settings}
          oauthClient={oauthClient && { clientId: oauthClient.clientId, secret: Boolean(oauthClient.secret) }}
          pending={create.isPending}
          error={create.error}
          onBack={() => setStep(server.oauth ? "oauth" : "configure")}
          onInstall={() => install(server)}
        />
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
