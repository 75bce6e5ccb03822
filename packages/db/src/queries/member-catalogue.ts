import type { DbTx } from "../client";

type Json = unknown;

function withMeta<T extends object>(item: T, meta: Json): T & { _meta?: Record<string, unknown> } {
  return meta && typeof meta === "object" ? { ...item, _meta: meta as Record<string, unknown> } : item;
}

function defined<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)) as T;
}

/**
 * A member's instances in one team (optionally one installation) with their stored catalogues, shaped as MCP
 * list items (original names, `_meta` kept). What the hosted route lists from: never a fan-out to upstreams.
 */
export async function loadMemberCatalogue(db: DbTx, { userId, teamId, installationSlug }: { userId: string; teamId: string; installationSlug?: string }) {
  const rows = await db.instance.findMany({
    where: { userId, installation: { teamId, ...(installationSlug ? { slug: installationSlug } : {}) } },
    orderBy: { installation: { slug: "asc" } },
    select: {
      id: true,
      status: true,
      statusMessage: true,
      capabilities: true,
      installation: { select: { id: true, slug: true, name: true, requestLogging: true } },
      tools: { orderBy: { position: "asc" } },
      resources: { orderBy: { position: "asc" } },
      resourceTemplates: { orderBy: { position: "asc" } },
      prompts: { orderBy: { position: "asc" } },
    },
  });
  return rows.map((r) => ({
    instanceId: r.id,
    installationId: r.installation.id,
    slug: r.installation.slug,
    name: r.installation.name,
    requestLogging: r.installation.requestLogging,
    status: r.status,
    statusMessage: r.statusMessage,
    /** What the upstream declared at its last discovery (completions, resource subscriptions...). */
    capabilities: (r.capabilities ?? null) as { completions?: object; resources?: { subscribe?: boolean } } | null,
    /** Tools the server lists only to clients that declared sampling, elicitation or roots. */
    clientCapabilityTools: r.tools.filter((t) => t.needsClientCapabilities).map((t) => t.name),
    tools: r.tools.map((t) =>
      withMeta(
        defined({
          name: t.name,
          title: t.title,
          description: t.description,
          inputSchema: t.inputSchema as { type: "object"; [k: string]: unknown },
          outputSchema: t.outputSchema as { type: "object"; [k: string]: unknown } | null,
          annotations: t.annotations as Record<string, unknown> | null,
        }),
        t.meta,
      ),
    ),
    resources: r.resources.map((x) =>
      withMeta(defined({ uri: x.uri, name: x.name, title: x.title, description: x.description, mimeType: x.mimeType, size: x.size, annotations: x.annotations as Record<string, unknown> | null }), x.meta),
    ),
    resourceTemplates: r.resourceTemplates.map((x) =>
      withMeta(defined({ uriTemplate: x.uriTemplate, name: x.name, title: x.title, description: x.description, mimeType: x.mimeType, annotations: x.annotations as Record<string, unknown> | null }), x.meta),
    ),
    prompts: r.prompts.map((x) =>
      withMeta(defined({ name: x.name, title: x.title, description: x.description, arguments: x.arguments as Array<{ name: string; description?: string; required?: boolean }> | null }), x.meta),
    ),
  }));
}

export type MemberCatalogueEntry = Awaited<ReturnType<typeof loadMemberCatalogue>>[number];
