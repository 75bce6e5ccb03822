"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { definitionChanges, unfilledRequired, type DefinitionChange } from "@switchboard/core/config";
import { describeSaved, EditConfirm } from "~/components/console/edit-impact";
import { Field } from "~/components/field";
import type { RouterInputs, RouterOutputs } from "~/trpc/types";
import { useTRPC } from "~/trpc/react";
import type { TestOutcome } from "../../catalogue/connection-test";
import { TemplateForm, type FieldDraft, type TemplateSubmit } from "../../catalogue/template-form";
import { FormError } from "~/components/ui/form-error";

type EditInput = RouterInputs["installation"]["edit"];
type Stored = RouterOutputs["catalogue"]["get"];

/** The launch parts a connection test exercises: a failed test of the same launch warns before saving it. */
const LAUNCH_PARTS = new Set<DefinitionChange["part"]>(["transport", "url", "command", "args"]);

/** The definition as core compares it: stored (with the installation's name) or as submitted. */
const definitionOf = (t: Stored | TemplateSubmit, name: string) => ({
  ...t,
  name,
  fields: t.fields.map((f) => ({ ...f, defaultValue: f.defaultValue ?? null })),
});

/** The sentence that warns before saving a launch whose last connection test failed, or undefined. */
function failedTestWarning(test: TestOutcome | null, t: TemplateSubmit): string | undefined {
  if (!test || test.ok) return undefined;
  const { command, url, args, oauth } = test.template;
  const tried = {
    ...test.template,
    fields: [],
    command: command ?? null,
    url: url ?? null,
    args: args ?? [],
    oauth: Boolean(oauth),
  };
  const same = definitionChanges(tried, { ...t, fields: [] }).every((c) => !LAUNCH_PARTS.has(c.part));
  if (!same) return undefined;
  return `The last connection test of this ${t.transport === "stdio" ? "command" : "URL"} failed (${test.message.replace(/\.$/, "")}). Members' instances may not come online: save anyway?`;
}

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
  const [review, setReview] = useState<{ changes: DefinitionChange[]; warning?: string } | null>(null);
  const [lastTest, setLastTest] = useState<TestOutcome | null>(null);
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
  const [valuesTried, setValuesTried] = useState(false);
  /** New required team settings without a stored value or default: the admin gives the team value here. */
  const newTeamFields = <F extends Pick<FieldDraft, "key" | "tier" | "required">>(fields: F[]) =>
    fields
      .filter((f) => f.tier === "team" && f.key.trim() && !setTeam.has(f.key))
      .map((f) => ({ ...f, defaultValue: (f as { defaultValue?: string | null }).defaultValue || null }))
      .filter((f) => f.required && !f.defaultValue);

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
          {describeSaved(save.data)}
        </p>
      )}
      {editing && template.isPending && <div className="skeleton" aria-busy="true" />}
      {editing && template.isError && <FormError error={template.error} />}
      {editing && template.data && (
        <div hidden={Boolean(pendingInput)}>
          <TemplateForm
            teamId={teamId}
            title={`Edit ${installation.name}`}
            submitLabel="Review changes"
            initial={template.data}
            lockSlug
            lockName
            pending={impact.isPending}
            error={impact.error}
            onDone={() => setEditing(false)}
            onTested={setLastTest}
            onSubmit={(t) => {
              const missing = unfilledRequired(newTeamFields(t.fields), teamValues);
              if (missing.length > 0) return setValuesTried(true);
              const input: EditInput = {
                teamId,
                installationId: installation.id,
                name,
                template: { ...t, slug: template.data.slug },
                values: Object.fromEntries(Object.entries(teamValues).filter(([, v]) => v !== "")),
                clear: [],
              };
              const changes = definitionChanges(definitionOf(template.data, installation.name), {
                ...definitionOf(t, name),
                description: t.description,
              });
              impact.mutate(input, {
                onSuccess: () => {
                  setReview({ changes, warning: failedTestWarning(lastTest, t) });
                  setPendingInput(input);
                },
              });
            }}
          >
            {(fields) => (
              <>
                <Field label="Installation name">
                  {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} />}
                </Field>
                <TeamValueInputs
                  fields={newTeamFields(fields)}
                  values={teamValues}
                  tried={valuesTried}
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
          changes={review?.changes}
          warning={review?.warning}
          pending={save.isPending}
          onBack={() => setPendingInput(null)}
          onConfirm={() => save.mutate(pendingInput)}
        />
      )}
      <FormError error={save.error} />
    </section>
  );
}

function TeamValueInputs({
  fields,
  values,
  tried,
  onChange,
}: {
  fields: (Pick<FieldDraft, "key" | "secret" | "required"> & { defaultValue: string | null })[];
  values: Record<string, string>;
  tried: boolean;
  onChange: (v: Record<string, string>) => void;
}) {
  const missing = new Set(unfilledRequired(fields, values).map((f) => f.key));
  if (fields.length === 0) return null;
  return (
    <fieldset className="stack" style={{ border: "1px solid var(--border)", borderRadius: 6, padding: ".75rem" }}>
      <legend>Team values for new required settings</legend>
      {fields.map((f) => (
        <Field
          key={f.key}
          label={`${f.key} (team value)`}
          error={tried && missing.has(f.key) ? `${f.key} is required: give the team's value.` : undefined}
        >
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
