"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { EditConfirm } from "~/components/console/edit-impact";
import { Field } from "~/components/field";
import { errorMessage } from "~/lib/errors";
import type { RouterInputs, RouterOutputs } from "~/trpc/types";
import { useTRPC } from "~/trpc/react";
import { TemplateForm, type FieldDraft } from "../../catalogue/template-form";

type EditInput = RouterInputs["installation"]["edit"];

/**
 * Edit in place: the installation's name, URL or command and arguments, and settings schema. Members keep their
 * values; the confirmation says how many members restart and how many must fill in a new required setting.
 */
export function EditSection({
  teamId,
  installation,
}: {
  teamId: string;
  installation: RouterOutputs["installation"]["get"];
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(installation.name);
  const [teamValues, setTeamValues] = useState<Record<string, string>>({});
  const [pendingInput, setPendingInput] = useState<EditInput | null>(null);
  const template = useQuery({
    ...trpc.catalogue.get.queryOptions({ teamId, templateId: installation.template.id }),
    enabled: editing,
  });
  const impact = useMutation({
    mutationFn: (input: EditInput) =>
      queryClient.fetchQuery(trpc.installation.editImpact.queryOptions(input, { staleTime: 0 })),
  });
  const save = useMutation(
    trpc.installation.edit.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries(trpc.installation.pathFilter());
        await queryClient.invalidateQueries(trpc.catalogue.pathFilter());
        await queryClient.invalidateQueries(trpc.instance.pathFilter());
        setPendingInput(null);
        setEditing(false);
      },
    }),
  );
  const setTeam = new Set(installation.teamFields.filter((f) => f.set).map((f) => f.key));

  return (
    <section className="card stack" aria-labelledby="edit-h">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h2 id="edit-h" style={{ margin: 0 }}>
          Server definition
        </h2>
        {!editing && (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setName(installation.name);
              setEditing(true);
            }}
          >
            Edit server
          </button>
        )}
      </div>
      {!editing && (
        <p className="muted" style={{ margin: 0, overflowWrap: "anywhere" }}>
          {installation.name}: <code>{installation.template.target}</code>. Edit the name, URL or command and the
          settings; members keep their values.
        </p>
      )}
      {save.isSuccess && !editing && (
        <p className="muted" role="status">
          Saved. The instances are restarting with the new configuration.
        </p>
      )}
      {editing && template.isPending && <div className="skeleton" aria-busy="true" />}
      {editing && template.isError && (
        <p className="error" role="alert">
          {errorMessage(template.error)}
        </p>
      )}
      {editing && template.data && (
        <div hidden={Boolean(pendingInput)}>
          <TemplateForm
            teamId={teamId}
            title={`Edit ${installation.name}`}
            submitLabel="Review changes"
            initial={template.data}
            lockSlug
            pending={impact.isPending}
            error={impact.error}
            onDone={() => setEditing(false)}
            onSubmit={(t) => {
              const input: EditInput = {
                teamId,
                installationId: installation.id,
                name,
                template: { ...t, slug: template.data.slug },
                values: Object.fromEntries(Object.entries(teamValues).filter(([, v]) => v !== "")),
                clear: [],
              };
              impact.mutate(input, { onSuccess: () => setPendingInput(input) });
            }}
          >
            {(fields) => (
              <>
                <Field label="Installation name">
                  {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} />}
                </Field>
                <TeamValueInputs
                  fields={fields.filter(
                    (f) => f.tier === "team" && f.key.trim() && f.required && !f.defaultValue && !setTeam.has(f.key),
                  )}
                  values={teamValues}
                  onChange={setTeamValues}
                />
              </>
            )}
          </TemplateForm>
        </div>
      )}
      {pendingInput && impact.data && (
        <EditConfirm
          impact={impact.data}
          currentInstallationId={installation.id}
          pending={save.isPending}
          onBack={() => setPendingInput(null)}
          onConfirm={() => save.mutate(pendingInput)}
        />
      )}
      {save.isError && (
        <p className="error" role="alert">
          {errorMessage(save.error)}
        </p>
      )}
    </section>
  );
}

function TeamValueInputs({
  fields,
  values,
  onChange,
}: {
  fields: FieldDraft[];
  values: Record<string, string>;
  onChange: (v: Record<string, string>) => void;
}) {
  if (fields.length === 0) return null;
  return (
    <fieldset className="stack" style={{ border: "1px solid var(--border)", borderRadius: 6, padding: ".75rem" }}>
      <legend>Team values for new required settings</legend>
      {fields.map((f) => (
        <Field key={f.key} label={`${f.key} (team value)`}>
          {(p) => (
            <input
              {...p}
              type={f.secret ? "password" : "text"}
              autoComplete="off"
              value={values[f.key] ?? ""}
              onChange={(e) => onChange({ ...values, [f.key]: e.target.value })}
            />
          )}
        </Field>
      ))}
    </fieldset>
  );
}
