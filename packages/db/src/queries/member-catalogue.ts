import { randomUUID } from "node:crypto";
import type pg from "pg";
import { toolDefinitionHash, type InstallationGovernance } from "@switchboard/core/governance";
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
      installation: {
        select: {
          id: true,
          slug: true,
          name: true,
          requestLogging: true,
          newTools: true,
          pinTools: true,
          itemSettings: { select: { kind: true, name: true, enabled: true, exposedName: true, exposedDescription: true, approvedHash: true } },
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
    capabilities: (r.capabilities ?? null) as { completions?: object; resources?: { subscribe?: boolean } } | null,
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

/** The installation's governance as the proxy applies it (core proxy `governInstances`). */
function governanceOf(
  installation: {
    newTools: "on" | "off_until_reviewed";
    pinTools: boolean;
    itemSettings: Array<{ kind: string; name: string; enabled: boolean; exposedName: string | null; exposedDescription: string | null; approvedHash: string | null }>;
    hiddenTools: Array<{ toolName: string }>;
  },
  tools: Array<{ name: string; title: string | null; description: string; inputSchema: unknown; outputSchema: unknown; annotations: unknown }>,
) {
  const governance: InstallationGovernance = {
    newTools: installation.newTools,
    pinned: installation.pinTools,
    tools: Object.fromEntries(
      installation.itemSettings
        .filter((s) => s.kind === "tool")
        .map((s) => [s.name, { enabled: s.enabled, exposedName: s.exposedName, exposedDescription: s.exposedDescription, approvedHash: s.approvedHash }]),
    ),
    disabledPrompts: installation.itemSettings.filter((s) => s.kind === "prompt" && !s.enabled).map((s) => s.name),
    disabledResourceTemplates: installation.itemSettings.filter((s) => s.kind === "resource_template" && !s.enabled).map((s) => s.name),
  };
  // Hashing is only needed to compare with approved definitions.
  const toolHashes = installation.pinTools ? Object.fromEntries(tools.map((t) => [t.name, toolDefinitionHash(t)])) : undefined;
  return { governance, toolHashes, hiddenTools: installation.hiddenTools.map((h) => h.toolName) };
}

export type MemberCatalogueEntry = Awaited<ReturnType<typeof loadMemberCatalogue>>[number];

export interface CallLogRow {
  teamId: string;
  installationId: string;
  instanceId: string;
  userId: string;
  tokenId: string | null;
  method: string;
  target: string;
  arguments: unknown;
  resultSummary: string | null;
  resultBytes: number;
  durationMs: number;
  attempts: number;
  outcome: "success" | "tool_error" | "error" | "blocked";
  errorMessage: string | null;
  /** When the call started (ISO 8601); the time of the write when absent. */
  startedAt?: string;
}

const INSERT_CALL_LOGS = `
  INSERT INTO "tool_call_logs" ("id", "teamId", "installationId", "instanceId", "userId", "tokenId", "method", "target",
    "arguments", "resultSummary", "resultBytes", "durationMs", "attempts", "outcome", "errorMessage", "createdAt")
  SELECT r."id", r."teamId", r."installationId", r."instanceId", r."userId", r."tokenId", r."method", r."target",
    r."arguments", r."resultSummary", r."resultBytes", r."durationMs", r."attempts", r."outcome"::"CallOutcome", r."errorMessage",
    COALESCE(r."startedAt", CURRENT_TIMESTAMP) AT TIME ZONE 'UTC'
  FROM jsonb_to_recordset($1::jsonb) AS r("id" text, "teamId" text, "installationId" text, "instanceId" text,
    "userId" text, "tokenId" text, "method" text, "target" text, "arguments" jsonb, "resultSummary" text,
    "resultBytes" integer, "durationMs" integer, "attempts" integer, "outcome" text, "errorMessage" text, "startedAt" timestamptz)`;

/**
 * Writes request-log rows in one statement whose only parameter is the batch as JSON: PostgreSQL unpacks it
 * with `jsonb_to_recordset`. The hosted route logs every call and passes the plain `pg` pool (`getBulkPool`):
 * through the ORM, building the statement cost more CPU in the web process than proxying the calls did.
 */
export async function insertCallLogs(db: DbTx | Pick<pg.Pool, "query">, rows: CallLogRow[]) {
  if (rows.length === 0) return;
  const batch = JSON.stringify(
    rows.map((row) => ({ ...row, id: randomUUID(), arguments: row.arguments ?? null, startedAt: row.startedAt ?? null })),
  );
  if ("query" in db) await db.query(INSERT_CALL_LOGS, [batch]);
  else await db.$executeRawUnsafe(INSERT_CALL_LOGS, batch);
}
