import type { DiscoveryResult } from "@switchboard/core/discovery";
import { canonicalJson } from "@switchboard/core/governance";
import type { DbTx } from "../client";
import type { Prisma } from "../generated/prisma/client";
import { type PageArgs, pageQuery, toPage } from "../pagination";

const json = (value: unknown) => (value === undefined || value === null ? undefined : (value as Prisma.InputJsonValue));

export interface ToolDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

/** Shared with pinning's hashes (core governance), so both compare definitions the same way. */
export { canonicalJson };

function toolSignature(tool: {
  description?: string | null;
  inputSchema: unknown;
  outputSchema?: unknown;
  title?: string | null;
}) {
  return canonicalJson([tool.title ?? null, tool.description ?? "", tool.inputSchema, tool.outputSchema ?? null]);
}

/**
 * Replaces an instance's whole catalogue (tools, resources, templates, prompts) and its discovery metadata in
 * one transaction. Only call it with a successful discovery: a failed one must keep the cached catalogue.
 * Returns which tools appeared, disappeared or changed, for the tools_changed event.
 */
export async function replaceCatalogue(
  db: { $transaction: <T>(fn: (tx: DbTx) => Promise<T>) => Promise<T> },
  instanceId: string,
  result: DiscoveryResult,
): Promise<ToolDiff> {
  return db.$transaction(async (tx) => {
    const before = await tx.instanceTool.findMany({
      where: { instanceId },
      select: { name: true, title: true, description: true, inputSchema: true, outputSchema: true },
    });
    await tx.instanceTool.deleteMany({ where: { instanceId } });
    await tx.instanceResource.deleteMany({ where: { instanceId } });
    await tx.instanceResourceTemplate.deleteMany({ where: { instanceId } });
    await tx.instancePrompt.deleteMany({ where: { instanceId } });

    const tokensByName = new Map(result.tokens.perTool.map((t) => [t.name, t.tokens]));
    const needsClientCapabilities = new Set(result.clientCapabilityTools ?? []);
    if (result.tools.length > 0) {
      await tx.instanceTool.createMany({
        data: result.tools.map((tool, position) => ({
          instanceId,
          name: tool.name,
          title: tool.title ?? null,
          description: tool.description ?? "",
          inputSchema: tool.inputSchema as Prisma.InputJsonValue,
          outputSchema: json(tool.outputSchema),
          annotations: json(tool.annotations),
          meta: json(tool._meta),
          execution: json(tool.execution),
          tokenCount: tokensByName.get(tool.name) ?? 0,
          position,
          needsClientCapabilities: needsClientCapabilities.has(tool.name),
        })),
      });
    }
    if (result.resources.length > 0) {
      await tx.instanceResource.createMany({
        data: result.resources.map((r, position) => ({
          instanceId,
          uri: r.uri,
          name: r.name,
          title: r.title ?? null,
          description: r.description ?? null,
          mimeType: r.mimeType ?? null,
          size: typeof r.size === "number" ? r.size : null,
          annotations: json(r.annotations),
          meta: json(r._meta),
          position,
        })),
        skipDuplicates: true,
      });
    }
    if (result.resourceTemplates.length > 0) {
      await tx.instanceResourceTemplate.createMany({
        data: result.resourceTemplates.map((t, position) => ({
          instanceId,
          uriTemplate: t.uriTemplate,
          name: t.name,
          title: t.title ?? null,
          description: t.description ?? null,
          mimeType: t.mimeType ?? null,
          annotations: json(t.annotations),
          meta: json(t._meta),
          position,
        })),
        skipDuplicates: true,
      });
    }
    if (result.prompts.length > 0) {
      await tx.instancePrompt.createMany({
        data: result.prompts.map((p, position) => ({
          instanceId,
          name: p.name,
          title: p.title ?? null,
          description: p.description ?? null,
          arguments: json(p.arguments),
          meta: json(p._meta),
          position,
        })),
        skipDuplicates: true,
      });
    }
    await tx.instance.update({
      where: { id: instanceId },
      data: {
        capabilities: result.capabilities as Prisma.InputJsonValue,
        serverInfo: json(result.serverInfo),
        protocolVersion: result.protocolVersion,
        discoveredAt: new Date(result.discoveredAt),
        toolCount: result.tools.length,
        totalTokens: result.tokens.total,
      },
    });

    const old = new Map(before.map((t) => [t.name, toolSignature(t)]));
    const now = new Map(result.tools.map((t) => [t.name, toolSignature(t)]));
    return {
      added: [...now.keys()].filter((n) => !old.has(n)),
      removed: [...old.keys()].filter((n) => !now.has(n)),
      changed: [...now.entries()].filter(([n, sig]) => old.has(n) && old.get(n) !== sig).map(([n]) => n),
    };
  });
}

/** Deletes the discovered catalogue of these instances (removal); rows already gone are fine. */
export async function deleteCatalogue(db: DbTx, instanceIds: readonly string[]): Promise<void> {
  if (instanceIds.length === 0) return;
  const where = { instanceId: { in: [...instanceIds] } };
  await db.instanceTool.deleteMany({ where });
  await db.instanceResource.deleteMany({ where });
  await db.instanceResourceTemplate.deleteMany({ where });
  await db.instancePrompt.deleteMany({ where });
  await db.instance.updateMany({
    where: { id: { in: [...instanceIds] } },
    data: { toolCount: 0, totalTokens: 0, discoveredAt: null },
  });
}

export async function countCatalogue(db: DbTx, instanceId: string) {
  const [tools, resources, resourceTemplates, prompts] = await Promise.all([
    db.instanceTool.count({ where: { instanceId } }),
    db.instanceResource.count({ where: { instanceId } }),
    db.instanceResourceTemplate.count({ where: { instanceId } }),
    db.instancePrompt.count({ where: { instanceId } }),
  ]);
  return { tools, resources, resourceTemplates, prompts };
}

export async function listToolNames(db: DbTx, instanceId: string): Promise<string[]> {
  const rows = await db.instanceTool.findMany({
    where: { instanceId },
    orderBy: { position: "asc" },
    select: { name: true },
  });
  return rows.map((r) => r.name);
}

/** An instance's discovered tools in discovery order; the input schema is fetched on demand (toolSchema). */
export async function listInstanceTools(
  db: DbTx,
  { instanceId, search, cursor, limit }: { instanceId: string; search?: string } & PageArgs,
) {
  const contains = search ? { contains: search, mode: "insensitive" as const } : undefined;
  const rows = await db.instanceTool.findMany({
    where: {
      instanceId,
      ...(contains ? { OR: [{ name: contains }, { title: contains }, { description: contains }] } : {}),
    },
    select: { id: true, name: true, title: true, description: true, tokenCount: true },
    orderBy: [{ position: "asc" }, { id: "asc" }],
    ...pageQuery({ cursor, limit }),
  });
  return toPage(rows, limit);
}

export async function findInstanceTool(db: DbTx, { instanceId, toolId }: { instanceId: string; toolId: string }) {
  return db.instanceTool.findFirst({
    where: { id: toolId, instanceId },
    select: { id: true, name: true, inputSchema: true, outputSchema: true, annotations: true },
  });
}

export async function listInstanceResources(
  db: DbTx,
  { instanceId, cursor, limit }: { instanceId: string } & PageArgs,
) {
  const rows = await db.instanceResource.findMany({
    where: { instanceId },
    select: { id: true, uri: true, name: true, title: true, description: true, mimeType: true },
    orderBy: [{ position: "asc" }, { id: "asc" }],
    ...pageQuery({ cursor, limit }),
  });
  return toPage(rows, limit);
}

export async function listInstanceResourceTemplates(
  db: DbTx,
  { instanceId, cursor, limit }: { instanceId: string } & PageArgs,
) {
  const rows = await db.instanceResourceTemplate.findMany({
    where: { instanceId },
    select: { id: true, uriTemplate: true, name: true, title: true, description: true, mimeType: true },
    orderBy: [{ position: "asc" }, { id: "asc" }],
    ...pageQuery({ cursor, limit }),
  });
  return toPage(rows, limit);
}

/** The instance's discovered prompts in discovery order, paginated by id. */
export async function listInstancePrompts(db: DbTx, { instanceId, ...page }: { instanceId: string } & PageArgs) {
  const rows = await db.instancePrompt.findMany({
    where: { instanceId },
    select: { id: true, name: true, title: true, description: true, arguments: true },
    orderBy: [{ position: "asc" }, { id: "asc" }],
    ...pageQuery(page),
  });
  return toPage(rows, page.limit);
}
