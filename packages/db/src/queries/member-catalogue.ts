import { type InstallationGovernance, toolDefinitionHash } from "@switchboard/core/governance";
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
export async function loadMemberCatalogue(
  db: DbTx,
  { userId, teamId, installationSlug }: { userId: string; teamId: string; installationSlug?: string },
) {
  const rows = await db.instance.findMany({
    where: { userId, installation: { teamId, ...(installationSlug ? { slug: installationSlug } : {}) } },
    orderBy: { installation: { slug: "asc" } },
    select: {
      id: true,
      status: true,
      statusMessage: true,
      capabilities: true,
      installation: {
        select: {
          id: true,
          slug: true,
          name: true,
          requestLogging: true,
          newTools: true,
          pinTools: true,
          itemSettings: {
            select: {
              kind: true,
              name: true,
              enabled: true,
              exposedName: true,
              exposedDescription: true,
              approvedHash: true,
              requiresApproval: true,
            },
          },
          hiddenTools: { where: { userId }, select: { toolName: true } },
        },
      },
      tools: { orderBy: { position: "asc" } },
      resources: { orderBy: { position: "asc" } },
      resourceTemplates: { orderBy: { position: "asc" } },
      prompts: { orderBy: { position: "asc" } },
    },
  });
  return rows.map((r) => ({
    ...governanceOf(r.installation, r.tools),
    instanceId: r.id,
    installationId: r.installation.id,
    slug: r.installation.slug,
    name: r.installation.name,
    requestLogging: r.installation.requestLogging,
    status: r.status,
    statusMessage: r.statusMessage,
    /** What the upstream declared at its last discovery (completions, resource subscriptions...). */
    capabilities: (r.capabilities ?? null) as {
      completions?: object;
      resources?: { subscribe?: boolean };
      tasks?: { list?: object; requests?: { tools?: { call?: object } } };
    } | null,
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
          execution: t.execution as Record<string, unknown> | null,
        }),
        t.meta,
      ),
    ),
    resources: r.resources.map((x) =>
      withMeta(
        defined({
          uri: x.uri,
          name: x.name,
          title: x.title,
          description: x.description,
          mimeType: x.mimeType,
          size: x.size,
          annotations: x.annotations as Record<string, unknown> | null,
        }),
        x.meta,
      ),
    ),
    resourceTemplates: r.resourceTemplates.map((x) =>
      withMeta(
        defined({
          uriTemplate: x.uriTemplate,
          name: x.name,
          title: x.title,
          description: x.description,
          mimeType: x.mimeType,
          annotations: x.annotations as Record<string, unknown> | null,
        }),
        x.meta,
      ),
    ),
    prompts: r.prompts.map((x) =>
      withMeta(
        defined({
          name: x.name,
          title: x.title,
          description: x.description,
          arguments: x.arguments as Array<{ name: string; description?: string; required?: boolean }> | null,
        }),
        x.meta,
      ),
    ),
  }));
}

/** The installation's governance as the proxy applies it (core proxy `governInstances`). */
function governanceOf(
  installation: {
    newTools: "on" | "off_until_reviewed";
    pinTools: boolean;
    itemSettings: Array<{
      kind: string;
      name: string;
      enabled: boolean;
      exposedName: string | null;
      exposedDescription: string | null;
      approvedHash: string | null;
      requiresApproval: boolean;
    }>;
    hiddenTools: Array<{ toolName: string }>;
  },
  tools: Array<{
    name: string;
    title: string | null;
    description: string;
    inputSchema: unknown;
    outputSchema: unknown;
    annotations: unknown;
  }>,
) {
  const governance: InstallationGovernance = {
    newTools: installation.newTools,
    pinned: installation.pinTools,
    tools: Object.fromEntries(
      installation.itemSettings
        .filter((s) => s.kind === "tool")
        .map((s) => [
          s.name,
          {
            enabled: s.enabled,
            exposedName: s.exposedName,
            exposedDescription: s.exposedDescription,
            approvedHash: s.approvedHash,
            // Only when set: a rule without it is the rule it always was.
            ...(s.requiresApproval ? { requiresApproval: true } : {}),
          },
        ]),
    ),
    disabledPrompts: installation.itemSettings.filter((s) => s.kind === "prompt" && !s.enabled).map((s) => s.name),
    disabledResourceTemplates: installation.itemSettings
      .filter((s) => s.kind === "resource_template" && !s.enabled)
      .map((s) => s.name),
  };
  // Hashing is only needed to compare with approved definitions.
  const toolHashes = installation.pinTools
    ? Object.fromEntries(tools.map((t) => [t.name, toolDefinitionHash(t)]))
    : undefined;
  return { governance, toolHashes, hiddenTools: installation.hiddenTools.map((h) => h.toolName) };
}

export type MemberCatalogueEntry = Awaited<ReturnType<typeof loadMemberCatalogue>>[number];
