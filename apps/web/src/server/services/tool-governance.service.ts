import { exposedNameProblems, MAX_EXPOSED_DESCRIPTION_LENGTH, type NewToolsPolicy } from "@switchboard/core/governance";
import { isToolNameTooLong, namespaceToolName } from "@switchboard/core/names";
import type { Db } from "@switchboard/db/client";
import {
  decideToolReview,
  findGovernedInstallation,
  findToolDefinitions,
  insertGovernanceAudit,
  installationCatalogueItems,
  listGovernanceAudit,
  listItemSettings,
  saveItemSettings,
  setNewToolsPolicy,
  setPinning,
  type ToolSettingInput,
} from "@switchboard/db/queries/governance";
import { findUserLabel } from "@switchboard/db/queries/user";
import { AppError } from "../errors";
import type { Actor } from "./actor";
import { publishCatalogueChanged, recordInstallationEvent } from "./governance-events";

/**
 * Tool governance for team admins: what each installation exposes and the review of pinned tools' changes.
 * Every function takes the one service call shape, `{ db, actor, ...input }`; the actor's team scopes it.
 */

async function installationOf(db: Db, actor: Actor, installationId: string) {
  const installation = await findGovernedInstallation(db, { teamId: actor.teamId, installationId });
  if (!installation) throw new AppError("NOT_FOUND", "Server not found.");
  return installation;
}

/** Why a tool is or is not served, for the console (per installation, from its latest known definition). */
export type ToolGovernanceState = "on" | "off" | "new_off" | "awaiting_review" | "rejected";

/** The installation's tools, prompts and templates with the admin's settings, as the tools tab shows them. */
export async function governanceView({ db, actor, installationId }: { db: Db; actor: Actor; installationId: string }) {
  const installation = await installationOf(db, actor, installationId);
  const [items, settings] = await Promise.all([
    installationCatalogueItems(db, installationId),
    listItemSettings(db, installationId),
  ]);
  const setting = (kind: string, name: string) => settings.find((s) => s.kind === kind && s.name === name);
  const tools = items.tools.map((t) => {
    const s = setting("tool", t.name);
    const pendingReview = installation.pinTools && !!s?.definitionHash && s.definitionHash !== s.approvedHash;
    const state: ToolGovernanceState = pendingReview
      ? s?.definitionHash === s?.rejectedHash
        ? "rejected"
        : "awaiting_review"
      : !s
        ? installation.newTools === "on"
          ? "on"
          : "new_off"
        : s.enabled
          ? "on"
          : "off";
    const exposedName = s?.exposedName ?? null;
    const namespaced = namespaceToolName(installation.slug, exposedName || t.name);
    return {
      name: t.name,
      title: t.title,
      description: t.description,
      tokenCount: t.tokenCount,
      enabled: s ? s.enabled : installation.newTools === "on",
      exposedName,
      exposedDescription: s?.exposedDescription ?? null,
      namespacedName: namespaced,
      nameTooLong: isToolNameTooLong(namespaced),
      state,
      reviewHash: pendingReview ? (s?.definitionHash ?? null) : null,
      requiresApproval: s?.requiresApproval ?? false,
    };
  });
  return {
    installationId,
    slug: installation.slug,
    newTools: installation.newTools,
    pinTools: installation.pinTools,
    awaitingReview: tools.filter((t) => t.state === "awaiting_review").length,
    tools,
    prompts: items.prompts.map((p) => ({
      name: p.name,
      description: p.description ?? "",
      enabled: setting("prompt", p.name)?.enabled ?? true,
    })),
    resourceTemplates: items.templates.map((t) => ({
      uriTemplate: t.uriTemplate,
      name: t.name,
      description: t.description ?? "",
      enabled: setting("resource_template", t.uriTemplate)?.enabled ?? true,
    })),
  };
}

/**
 * Saves an admin's changes: tools on/off, exposed names and descriptions (checked: allowed characters, at most
 * 64 characters as `{slug}-{name}`, unique in the installation), prompts and templates on/off, and the
 * installation's `newTools` and pinning settings. Connected clients hear `list_changed`.
 */
export async function saveGovernance({
  db,
  actor,
  installationId,
  tools = [],
  prompts = [],
  resourceTemplates = [],
  newTools,
  pinTools,
}: {
  db: Db;
  actor: Actor;
  installationId: string;
  tools?: ToolSettingInput[];
  prompts?: Array<{ name: string; enabled: boolean }>;
  resourceTemplates?: Array<{ uriTemplate: string; enabled: boolean }>;
  newTools?: NewToolsPolicy;
  pinTools?: boolean;
}) {
  const installation = await installationOf(db, actor, installationId);
  const renames = tools.filter((t) => t.exposedName !== undefined);
  if (renames.length > 0) {
    const [items, settings] = await Promise.all([
      installationCatalogueItems(db, installationId),
      listItemSettings(db, installationId),
    ]);
    const names = [
      ...new Set([...items.tools.map((t) => t.name), ...settings.filter((s) => s.kind === "tool").map((s) => s.name)]),
    ];
    const unknown = renames.find((t) => !names.includes(t.name));
    if (unknown) throw new AppError("NOT_FOUND", `This server has no tool “${unknown.name}”.`);
    const overrides: Record<string, string | null> = Object.fromEntries(
      settings.filter((s) => s.kind === "tool").map((s) => [s.name, s.exposedName]),
    );
    for (const t of renames) overrides[t.name] = t.exposedName?.trim() || null;
    const problem =
      exposedNameProblems(installation.slug, names, overrides).find((p) => renames.some((r) => r.name === p.tool)) ??
      exposedNameProblems(installation.slug, names, overrides)[0];
    if (problem) throw new AppError("INVALID_INPUT", `Tool “${problem.tool}”: ${problem.message}`);
  }
  const long = tools.find((t) => (t.exposedDescription?.length ?? 0) > MAX_EXPOSED_DESCRIPTION_LENGTH);
  if (long)
    throw new AppError(
      "INVALID_INPUT",
      `The description of “${long.name}” is longer than ${MAX_EXPOSED_DESCRIPTION_LENGTH} characters.`,
    );

  const actorLabel = await findUserLabel(db, actor.userId);
  await db.$transaction(async (tx) => {
    await saveItemSettings(
      tx,
      installationId,
      "tool",
      tools.map((t) => ({
        ...t,
        exposedName: t.exposedName === undefined ? undefined : t.exposedName?.trim() || null,
      })),
    );
    await saveItemSettings(tx, installationId, "prompt", prompts);
    await saveItemSettings(
      tx,
      installationId,
      "resource_template",
      resourceTemplates.map((t) => ({ name: t.uriTemplate, enabled: t.enabled })),
    );
    if (newTools !== undefined && newTools !== installation.newTools)
      await setNewToolsPolicy(tx, installationId, newTools);
    if (pinTools !== undefined && pinTools !== installation.pinTools) await setPinning(tx, installationId, pinTools);
    await insertGovernanceAudit(tx, {
      teamId: actor.teamId,
      installationId,
      actorId: actor.userId,
      actorLabel,
      action: "tool_settings_changed",
      target: installation.slug,
      detail: {
        tools,
        prompts,
        resourceTemplates,
        ...(newTools !== undefined ? { newTools } : {}),
        ...(pinTools !== undefined ? { pinTools } : {}),
      },
    });
  });
  await publishCatalogueChanged(db, { installationId }, "tool settings changed");
  return governanceView({ db, actor, installationId });
}

/** The approved and the new definition of a held-back tool, for the admin's diff. */
export async function toolReview({
  db,
  actor,
  installationId,
  name,
}: {
  db: Db;
  actor: Actor;
  installationId: string;
  name: string;
}) {
  await installationOf(db, actor, installationId);
  const row = await findToolDefinitions(db, { installationId, name });
  if (!row?.definitionHash || row.definitionHash === row.approvedHash)
    throw new AppError("NOT_FOUND", `No new definition of “${name}” is waiting for review.`);
  return {
    name,
    hash: row.definitionHash,
    approved: (row.approvedDefinition ?? null) as Record<string, unknown> | null,
    proposed: row.definition as Record<string, unknown>,
  };
}

export async function decideReview({
  db,
  actor,
  installationId,
  name,
  hash,
  decision,
}: {
  db: Db;
  actor: Actor;
  installationId: string;
  name: string;
  hash: string;
  decision: "approved" | "rejected";
}) {
  const installation = await installationOf(db, actor, installationId);
  const actorLabel = await findUserLabel(db, actor.userId);
  const decided = await db.$transaction(async (tx) => {
    const ok = await decideToolReview(tx, { installationId, name, hash, decision, reviewerId: actor.userId });
    if (ok) {
      await insertGovernanceAudit(tx, {
        teamId: actor.teamId,
        installationId,
        actorId: actor.userId,
        actorLabel,
        action: decision === "approved" ? "tool_approved" : "tool_rejected",
        target: `${installation.slug}/${name}`,
        detail: { hash },
      });
    }
    return ok;
  });
  if (!decided)
    throw new AppError("CONFLICT", `The definition of “${name}” changed since you opened it; review it again.`);
  await recordInstallationEvent(db, installationId, "tool_review_decided", { tool: name, decision, by: actorLabel });
  return governanceView({ db, actor, installationId });
}

export async function auditTrail({ db, actor, installationId }: { db: Db; actor: Actor; installationId?: string }) {
  if (installationId) await installationOf(db, actor, installationId);
  const rows = await listGovernanceAudit(db, { teamId: actor.teamId, installationId });
  return rows.map((r) => ({
    id: r.id,
    actor: r.actorLabel,
    action: r.action,
    target: r.target,
    createdAt: r.createdAt,
  }));
}
