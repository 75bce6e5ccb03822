import {
  DEFAULT_GUARDRAILS,
  resolveGuardrails,
  type GuardrailAction,
  type GuardrailCategory,
  type GuardrailSettings,
} from "@switchboard/core/guardrails/rules";
import type { Db } from "@switchboard/db/client";
import {
  findGovernedInstallation,
  findInstallationGuardrails,
  setInstallationGuardrails,
} from "@switchboard/db/queries/governance";
import { AppError } from "../errors";
import type { Actor } from "./actor";

/**
 * An installation's guardrails (docs/guardrails.md): an action per category over core's defaults. The gateway
 * reads them within a few seconds of a change (`GUARDRAIL_SETTINGS_TTL_MS`), so nothing needs to be announced;
 * the change itself is in the audit trail, as every mutation is.
 */
export interface GuardrailsView {
  settings: GuardrailSettings;
  defaults: GuardrailSettings;
}

async function installationOf(db: Db, actor: Actor, installationId: string) {
  const installation = await findGovernedInstallation(db, { teamId: actor.teamId, installationId });
  if (!installation) throw new AppError("NOT_FOUND", "Server not found.");
  return installation;
}

export async function guardrails({
  db,
  actor,
  installationId,
}: {
  db: Db;
  actor: Actor;
  installationId: string;
}): Promise<GuardrailsView> {
  await installationOf(db, actor, installationId);
  return {
    settings: resolveGuardrails(await findInstallationGuardrails(db, installationId)),
    defaults: DEFAULT_GUARDRAILS,
  };
}

/** Stores every category's action (a category set to its default is stored too: a later default change spares it). */
export async function setGuardrails({
  db,
  actor,
  installationId,
  settings,
}: {
  db: Db;
  actor: Actor;
  installationId: string;
  settings: Record<GuardrailCategory, GuardrailAction>;
}): Promise<GuardrailsView> {
  await installationOf(db, actor, installationId);
  await setInstallationGuardrails(db, installationId, settings);
  return guardrails({ db, actor, installationId });
}
