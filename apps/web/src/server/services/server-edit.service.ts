import "server-only";
import {
  changesRestart,
  definitionChanges,
  missingRequiredFields,
  planFieldChanges,
  type ConfigField,
  type FieldChanges,
} from "@switchboard/core/config";
import type { Db } from "@switchboard/db/client";
import { getCipher } from "@switchboard/db/crypto";
import {
  applyTemplateEdit,
  loadTemplateForEdit,
  type TemplateForEdit,
  templateSlugTaken,
} from "@switchboard/db/queries/template";
import { findInstallation } from "@switchboard/db/queries/installation";
import { enqueueConfigChanged } from "@switchboard/runtime/jobs";
import { urlRefusal } from "@switchboard/runtime/egress";
import { AppError } from "../errors";
import type { TemplateInput } from "./catalogue.service";
import type { Actor } from "./actor";
import { sealValues } from "./config-values";
import { assertStdioAllowed } from "./deployment.service";

/**
 * Editing a server in place: a template's launch (URL, or command and arguments) and settings schema, from the
 * catalogue or from one of its installations. Members' values survive; a removed field's values are dropped; a
 * new required member field moves only the members who lack a value to awaiting_user_config (the worker's
 * config.changed does that, and restarts every other instance with the new configuration).
 */

export interface EditImpact {
  /** Every installation of the template (an edit from one installation changes the others too). */
  installations: { id: string; name: string; slug: string; members: number; awaiting: number }[];
  /** Members whose instance restarts with the new configuration. */
  restarting: number;
  /** Members who will have to fill in a setting before their instance starts again. */
  awaiting: number;
  dropped: string[];
  newlyRequired: string[];
  /** Whether the launch changes at all (a new name alone restarts nothing). */
  restarts: boolean;
}

type Stored = { key: string; value: string; encrypted: boolean };

function fieldsOf(input: TemplateInput): ConfigField[] {
  return input.fields.map((f) => ({ ...f, defaultValue: f.defaultValue ?? null }));
}

/** The one rule of what restarts (core's `definitionChanges`): the launch and the settings schema, not words. */
function launchChanged(t: TemplateForEdit, input: TemplateInput, changes: FieldChanges): boolean {
  const before = { ...t, fields: t.fields.map((f) => ({ ...f, defaultValue: f.defaultValue ?? null })) };
  return changes.dropped.length > 0 || changesRestart(definitionChanges(before, { ...input, fields: fieldsOf(input) }));
}

/** Who an edit touches, computed against what is stored now (`teamValues` replaces one installation's). */
function impactOf(
  t: TemplateForEdit,
  input: TemplateInput,
  changes: FieldChanges,
  teamValues?: { installationId: string; values: Stored[] },
): EditImpact {
  const fields = fieldsOf(input);
  const present = (vs: readonly { key: string; value: string }[]) =>
    Object.fromEntries(vs.filter((v) => !changes.dropped.includes(v.key)).map((v) => [v.key, v.value]));
  const restarts = launchChanged(t, input, changes);
  const installations = t.installations.map((i) => {
    const team = present(teamValues?.installationId === i.id ? teamValues.values : i.values);
    const awaiting = i.instances.filter(
      (m) => missingRequiredFields(fields, team, present(m.values), "user").length > 0,
    ).length;
    return {
      id: i.id,
      name: i.name,
      slug: i.slug,
      members: i.instances.length,
      awaiting,
      teamMissing: missingRequiredFields(fields, team, {}, "team"),
    };
  });
  for (const i of installations) {
    if (i.teamMissing.length > 0) {
      throw new AppError(
        "INVALID_INPUT",
        `“${i.name}” has no value for the required team setting${i.teamMissing.length > 1 ? "s" : ""} ${i.teamMissing.join(", ")}: give ${i.teamMissing.length > 1 ? "them defaults" : "it a default"}, or edit that installation and fill ${i.teamMissing.length > 1 ? "them" : "it"} in.`,
      );
    }
  }
  const awaiting = installations.reduce((n, i) => n + i.awaiting, 0);
  const members = installations.reduce((n, i) => n + i.members, 0);
  return {
    installations: installations.map(({ teamMissing: _t, ...i }) => i),
    restarting: restarts ? members - awaiting : 0,
    awaiting: restarts ? awaiting : 0,
    dropped: changes.dropped,
    newlyRequired: changes.newlyRequired,
    restarts,
  };
}

async function loadTemplate(db: Db, teamId: string, templateId: string) {
  const t = await loadTemplateForEdit(db, { teamId, templateId });
  if (!t) throw new AppError("NOT_FOUND", "Server template not found.");
  return t;
}

/** The same checks as adding a template: the deployment's stdio rules and the egress rules for a URL. */
async function assertLaunchAllowed(db: Db, teamId: string, input: TemplateInput) {
  if (input.transport === "stdio") {
    const envKeys = input.fields.filter((f) => f.kind === "env").map((f) => f.key);
    await assertStdioAllowed(db, { teamId, command: input.command ?? "", args: input.args, envKeys });
    return;
  }
  const refusal = input.url ? urlRefusal(input.url) : null;
  if (refusal) throw new AppError("INVALID_INPUT", refusal);
}

/** The launch and settings schema a template edit writes (stdio: command and arguments; remote: the URL). */
function launchOf(template: TemplateInput) {
  return {
    transport: template.transport,
    command: template.transport === "stdio" ? (template.command ?? null) : null,
    args: template.transport === "stdio" ? template.args : [],
    url: template.transport === "stdio" ? null : (template.url ?? null),
    oauth: template.oauth,
    fields: template.fields,
  };
}

interface InstallationEditInput {
  installationId: string;
  name: string;
  template: TemplateInput;
  values: Record<string, string>;
  clear: string[];
}

/** The one service call shape (`{ db, actor, ...input }`): the actor's team is the one edited. */
type InstallationEditArgs = { db: Db; actor: Actor; input: InstallationEditInput };
type TemplateEditArgs = { db: Db; actor: Actor; templateId: string; template: TemplateInput };

async function prepareInstallationEdit(db: Db, teamId: string, input: InstallationEditInput) {
  const installation = await findInstallation(db, { teamId, installationId: input.installationId });
  if (!installation) throw new AppError("NOT_FOUND", "Installed server not found.");
  const t = await loadTemplate(db, teamId, installation.template.id);
  const template = { ...input.template, slug: t.slug };
  const changes = planFieldChanges(t.fields, fieldsOf(template));
  const own = t.installations.find((i) => i.id === installation.id)!;
  const teamFields = template.fields
    .filter((f) => f.tier === "team")
    .map((f) => ({ ...f, label: f.label || f.key, defaultValue: f.defaultValue ?? null }));
  const stored = own.values.filter((v) => !changes.dropped.includes(v.key));
  const sealed = sealValues({
    fields: teamFields,
    stored,
    submitted: input.values,
    clear: input.clear,
    requireAll: true,
  });
  const after = [
    ...stored.filter((v) => !sealed.removals.includes(v.key) && !sealed.upserts.some((u) => u.key === v.key)),
    ...sealed.upserts,
  ];
  const teamValuesChanged = sealed.upserts.length > 0 || sealed.removals.some((k) => stored.some((v) => v.key === k));
  const impact = impactOf(t, template, changes, { installationId: installation.id, values: after });
  if (teamValuesChanged && !impact.restarts) {
    // New team values restart this installation's instances (as updateTeamValues does).
    const own = impact.installations.find((i) => i.id === installation.id)!;
    impact.restarts = true;
    impact.restarting = own.members - own.awaiting;
    impact.awaiting = own.awaiting;
  }
  return { installation, t, template, changes, sealed, impact, teamValuesChanged };
}

/** What saving this installation edit would do: for the confirmation. Nothing is written. */
export async function installationEditImpact({ db, actor, input }: InstallationEditArgs): Promise<EditImpact> {
  const { teamId } = actor;
  return (await prepareInstallationEdit(db, teamId, input)).impact;
}

/**
 * Saves an installation's name, launch, settings schema and team values; the installation keeps its id, slug,
 * members' values, tools, events and request log. Every installation of the same template gets the new launch
 * and schema (the impact lists them) and the worker restarts their instances.
 */
export async function editInstallation({ db, actor, input }: InstallationEditArgs): Promise<EditImpact> {
  const { teamId } = actor;
  const prepared = await prepareInstallationEdit(db, teamId, input);
  const { installation, t, template, changes, sealed, impact, teamValuesChanged } = prepared;
  if (impact.restarts) await assertLaunchAllowed(db, teamId, template);
  await applyTemplateEdit(db, getCipher(), {
    templateId: t.id,
    ...launchOf(template),
    dropped: changes.dropped,
    resealed: changes.resealed,
    teamValues: { installationId: installation.id, upserts: sealed.upserts, removals: sealed.removals },
    description: template.description,
    installationName:
      input.name !== installation.name ? { installationId: installation.id, name: input.name } : undefined,
  });
  if (impact.restarts) {
    const launch = launchChanged(t, template, changes);
    for (const i of impact.installations)
      if (launch || (teamValuesChanged && i.id === installation.id))
        await enqueueConfigChanged({ installationId: i.id });
  }
  return impact;
}

/** What saving this template edit would do, for the confirmation. Nothing is written. */
export async function templateEditImpact({ db, actor, templateId, template }: TemplateEditArgs): Promise<EditImpact> {
  const { teamId } = actor;
  const t = await loadTemplate(db, teamId, templateId);
  return impactOf(t, template, planFieldChanges(t.fields, fieldsOf(template)));
}

/** Saves a catalogue template in place; every installation of it restarts with the new launch and schema. */
export async function editTemplate({ db, actor, templateId, template }: TemplateEditArgs): Promise<EditImpact> {
  const { teamId } = actor;
  const t = await loadTemplate(db, teamId, templateId);
  if (template.slug !== t.slug && (await templateSlugTaken(db, { teamId, slug: template.slug }))) {
    throw new AppError("CONFLICT", `A server with the slug “${template.slug}” already exists in this team.`);
  }
  const changes = planFieldChanges(t.fields, fieldsOf(template));
  const impact = impactOf(t, template, changes);
  if (impact.restarts) await assertLaunchAllowed(db, teamId, template);
  await applyTemplateEdit(db, getCipher(), {
    templateId: t.id,
    slug: template.slug,
    name: template.name,
    description: template.description,
    ...launchOf(template),
    dropped: changes.dropped,
    resealed: changes.resealed,
  });
  if (impact.restarts) for (const i of impact.installations) await enqueueConfigChanged({ installationId: i.id });
  return impact;
}
