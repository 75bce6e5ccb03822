import { toolDefinition, type ToolDefinition, toolDefinitionHash } from "@switchboard/core/governance";
import type { DbTx } from "../client";
import type { Prisma } from "../generated/prisma/client";

const asJson = (value: unknown) => value as Prisma.InputJsonValue;

/**
 * Keeps an installation's tool rows in step with what a discovery found (run after `replaceCatalogue`):
 * the first discovery of an installation approves and turns on every tool it finds; later ones add new tools
 * on or off by the installation's `newTools` setting. Without pinning the latest definition is the approved
 * one; with pinning a new or changed definition waits for review. Returns the tools that started waiting now
 * (not those already waiting or rejected in this very definition).
 */
export async function recordDiscoveredTools(
  db: { $transaction: <T>(fn: (tx: DbTx) => Promise<T>) => Promise<T> },
  installationId: string,
  tools: readonly ToolDefinition[],
): Promise<{ awaitingReview: string[] }> {
  return db.$transaction(async (tx) => {
    const installation = await tx.installation.findUnique({
      where: { id: installationId },
      select: { newTools: true, pinTools: true },
    });
    if (!installation) return { awaitingReview: [] };
    const rows = await tx.installationItemSetting.findMany({
      where: { installationId, kind: "tool" },
      select: { name: true, definitionHash: true, approvedHash: true, rejectedHash: true },
    });
    const byName = new Map(rows.map((r) => [r.name, r]));
    const firstSight = rows.length === 0;
    const awaitingReview: string[] = [];
    const created: Prisma.InstallationItemSettingCreateManyInput[] = [];
    for (const tool of tools) {
      const definition = toolDefinition(tool);
      const hash = toolDefinitionHash(tool);
      const row = byName.get(tool.name);
      const approve = firstSight || !installation.pinTools;
      if (!row) {
        created.push({
          installationId,
          kind: "tool",
          name: tool.name,
          enabled: firstSight || installation.newTools === "on",
          definition: asJson(definition),
          definitionHash: hash,
          ...(approve ? { approvedDefinition: asJson(definition), approvedHash: hash } : {}),
        });
        if (!approve) awaitingReview.push(tool.name);
        continue;
      }
      if (row.definitionHash === hash && (!approve || row.approvedHash === hash)) continue;
      await tx.installationItemSetting.update({
        where: { installationId_kind_name: { installationId, kind: "tool", name: tool.name } },
        data: {
          definition: asJson(definition),
          definitionHash: hash,
          ...(approve ? { approvedDefinition: asJson(definition), approvedHash: hash } : {}),
        },
      });
      if (!approve && hash !== row.approvedHash && hash !== row.rejectedHash && hash !== row.definitionHash)
        awaitingReview.push(tool.name);
    }
    if (created.length > 0) await tx.installationItemSetting.createMany({ data: created, skipDuplicates: true });
    return { awaitingReview };
  });
}

export interface ToolSettingInput {
  name: string;
  enabled?: boolean;
  exposedName?: string | null;
  exposedDescription?: string | null;
}

/** Saves admin settings of tools, prompts or templates (rows are created for items a discovery has not written). */
export async function saveItemSettings(
  db: DbTx,
  installationId: string,
  kind: "tool" | "prompt" | "resource_template",
  items: readonly ToolSettingInput[],
) {
  for (const item of items) {
    const data = {
      ...(item.enabled !== undefined ? { enabled: item.enabled } : {}),
      ...(item.exposedName !== undefined ? { exposedName: item.exposedName || null } : {}),
      ...(item.exposedDescription !== undefined ? { exposedDescription: item.exposedDescription || null } : {}),
    };
    await db.installationItemSetting.upsert({
      where: { installationId_kind_name: { installationId, kind, name: item.name } },
      create: { installationId, kind, name: item.name, ...data },
      update: data,
    });
  }
}

export async function listItemSettings(db: DbTx, installationId: string) {
  return db.installationItemSetting.findMany({
    where: { installationId },
    orderBy: [{ kind: "asc" }, { name: "asc" }],
  });
}

/**
 * Turns pinning on or off. Turning it on approves each tool's latest definition (what members see now), so
 * only later changes wait for review.
 */
export async function setPinning(db: DbTx, installationId: string, pinned: boolean) {
  if (pinned) {
    await db.$executeRaw`UPDATE "installation_item_settings" SET "approvedHash" = "definitionHash", "approvedDefinition" = "definition", "updatedAt" = now()
      WHERE "installationId" = ${installationId} AND "kind" = 'tool' AND "definitionHash" IS NOT NULL AND "approvedHash" IS DISTINCT FROM "definitionHash"`;
  } else {
    // Unpinned, the latest definition is the approved one.
    await db.$executeRaw`UPDATE "installation_item_settings" SET "approvedHash" = "definitionHash", "approvedDefinition" = "definition", "rejectedHash" = NULL, "updatedAt" = now()
      WHERE "installationId" = ${installationId} AND "kind" = 'tool' AND "definitionHash" IS NOT NULL`;
  }
  await db.installation.update({ where: { id: installationId }, data: { pinTools: pinned } });
}

/**
 * Approves or rejects a tool's pending definition, if it is still the one the admin reviewed (`hash`).
 * Approving a tool that had no approved definition (new) also turns it on. Returns false when the definition
 * changed meanwhile (the admin reviews again).
 */
export async function decideToolReview(
  db: DbTx,
  input: {
    installationId: string;
    name: string;
    hash: string;
    decision: "approved" | "rejected";
    reviewerId: string;
    at?: Date;
  },
): Promise<boolean> {
  const row = await db.installationItemSetting.findUnique({
    where: { installationId_kind_name: { installationId: input.installationId, kind: "tool", name: input.name } },
    select: { definitionHash: true, definition: true, approvedHash: true },
  });
  if (!row || row.definitionHash !== input.hash || row.approvedHash === input.hash) return false;
  const reviewed = { reviewedById: input.reviewerId, reviewedAt: input.at ?? new Date() };
  await db.installationItemSetting.update({
    where: { installationId_kind_name: { installationId: input.installationId, kind: "tool", name: input.name } },
    data:
      input.decision === "approved"
        ? {
            ...reviewed,
            approvedHash: input.hash,
            approvedDefinition: asJson(row.definition),
            rejectedHash: null,
            ...(row.approvedHash ? {} : { enabled: true }),
          }
        : { ...reviewed, rejectedHash: input.hash, ...(row.approvedHash ? {} : { enabled: false }) },
  });
  return true;
}

export async function insertGovernanceAudit(
  db: DbTx,
  entry: {
    teamId: string;
    installationId?: string | null;
    actorId: string;
    actorLabel: string;
    action: string;
    target: string;
    detail?: Record<string, unknown>;
  },
) {
  await db.governanceAuditEntry.create({
    data: { ...entry, installationId: entry.installationId ?? null, detail: asJson(entry.detail ?? {}) },
  });
}

export async function listGovernanceAudit(
  db: DbTx,
  { teamId, installationId, take = 100 }: { teamId: string; installationId?: string; take?: number },
) {
  return db.governanceAuditEntry.findMany({
    where: { teamId, ...(installationId ? { installationId } : {}) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take,
    select: { id: true, actorLabel: true, action: true, target: true, detail: true, createdAt: true },
  });
}

/**
 * The distinct tools, prompts and templates the installation's instances discovered (the union over members'
 * instances: they may differ), with token counts from one instance that has the tool.
 */
export async function installationCatalogueItems(db: DbTx, installationId: string) {
  const [tools, prompts, templates] = await Promise.all([
    db.instanceTool.findMany({
      where: { instance: { installationId } },
      distinct: ["name"],
      orderBy: [{ name: "asc" }],
      select: { name: true, title: true, description: true, tokenCount: true },
    }),
    db.instancePrompt.findMany({
      where: { instance: { installationId } },
      distinct: ["name"],
      orderBy: { name: "asc" },
      select: { name: true, description: true },
    }),
    db.instanceResourceTemplate.findMany({
      where: { instance: { installationId } },
      distinct: ["uriTemplate"],
      orderBy: { uriTemplate: "asc" },
      select: { uriTemplate: true, name: true, description: true },
    }),
  ]);
  return { tools, prompts, templates };
}

/** The installation with its governance settings, only within its team (another team's reads as missing). */
export async function findGovernedInstallation(
  db: DbTx,
  { teamId, installationId }: { teamId: string; installationId: string },
) {
  return db.installation.findFirst({
    where: { id: installationId, teamId },
    select: { id: true, slug: true, name: true, newTools: true, pinTools: true },
  });
}

export async function setNewToolsPolicy(db: DbTx, installationId: string, newTools: "on" | "off_until_reviewed") {
  await db.installation.update({ where: { id: installationId }, data: { newTools } });
}

/** A tool's stored and approved definitions, for the admin's review diff. */
export async function findToolDefinitions(
  db: DbTx,
  { installationId, name }: { installationId: string; name: string },
) {
  return db.installationItemSetting.findUnique({
    where: { installationId_kind_name: { installationId, kind: "tool", name } },
    select: { definition: true, definitionHash: true, approvedDefinition: true, approvedHash: true },
  });
}

/** An installation's guardrail settings as stored (core `resolveGuardrails` reads them); null when it is gone. */
export async function findInstallationGuardrails(db: DbTx, installationId: string): Promise<unknown> {
  const row = await db.installation.findUnique({ where: { id: installationId }, select: { guardrails: true } });
  return row ? row.guardrails : null;
}

/** Replaces an installation's guardrail settings (already checked with core `guardrailSettingsSchema`). */
export async function setInstallationGuardrails(
  db: DbTx,
  installationId: string,
  guardrails: Partial<Record<string, string>>,
) {
  await db.installation.update({ where: { id: installationId }, data: { guardrails } });
}
