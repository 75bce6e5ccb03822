import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { isToolNameTooLong, namespaceToolName } from "../names";
import { countCatalogueTokens } from "../tokens";
import { collectPages } from "./paginate";
import type { DiscoveryClient, DiscoveryResult, LongToolName } from "./types";

export interface DiscoverOptions {
  /** The instance's slug, used to check the length of the names clients will see. */
  slug: string;
  now?: () => Date;
}

/**
 * Lists everything an upstream offers, every page of it. Resources, templates and prompts are optional: they
 * are skipped when the server does not declare the capability and an empty list when it answers
 * MethodNotFound anyway. Any other failure (connection, timeout, a broken tools/list) rejects: the caller
 * keeps its previous catalogue.
 */
export async function discover(client: DiscoveryClient, options: DiscoverOptions): Promise<DiscoveryResult> {
  const now = options.now ?? (() => new Date());
  const started = now();
  // tools/list goes first and unconditionally: it also connects a lazy client, after which capabilities are known.
  const tools = await optional(false, true, () =>
    collectPages(async (cursor) => {
      const r = await client.listTools(cursor ? { cursor } : undefined);
      return { items: r.tools, nextCursor: r.nextCursor };
    }, "tools/list"),
  );
  const capabilities = client.getServerCapabilities() ?? {};
  const resources = await optional(capabilities.resources !== undefined, false, () =>
    collectPages(async (cursor) => {
      const r = await client.listResources(cursor ? { cursor } : undefined);
      return { items: r.resources, nextCursor: r.nextCursor };
    }, "resources/list"),
  );
  const resourceTemplates = await optional(capabilities.resources !== undefined, false, () =>
    collectPages(async (cursor) => {
      const r = await client.listResourceTemplates(cursor ? { cursor } : undefined);
      return { items: r.resourceTemplates, nextCursor: r.nextCursor };
    }, "resources/templates/list"),
  );
  const prompts = await optional(capabilities.prompts !== undefined, false, () =>
    collectPages(async (cursor) => {
      const r = await client.listPrompts(cursor ? { cursor } : undefined);
      return { items: r.prompts, nextCursor: r.nextCursor };
    }, "prompts/list"),
  );

  const longToolNames: LongToolName[] = [];
  for (const tool of tools) {
    const namespaced = namespaceToolName(options.slug, tool.name);
    if (isToolNameTooLong(namespaced)) longToolNames.push({ name: tool.name, namespaced, length: namespaced.length });
  }
  const finished = now();
  return {
    slug: options.slug,
    tools,
    resources,
    resourceTemplates,
    prompts,
    tokens: countCatalogueTokens(tools),
    longToolNames,
    capabilities,
    serverInfo: client.getServerVersion() ?? null,
    protocolVersion: client.getProtocolVersion?.() ?? null,
    instructions: client.getInstructions?.() ?? null,
    discoveredAt: finished.toISOString(),
    durationMs: finished.getTime() - started.getTime(),
  };
}

/**
 * Runs an optional list. Declared capability: run it, MethodNotFound still counts as empty (servers declare
 * `resources` and implement only half of it). Undeclared: skip, except for tools, which are always asked for
 * (some servers serve them without declaring); there too MethodNotFound means none.
 */
async function optional<T>(declared: boolean, tryUndeclared: boolean, list: () => Promise<T[]>): Promise<T[]> {
  if (!declared && !tryUndeclared) return [];
  try {
    return await list();
  } catch (error) {
    if (error instanceof McpError && error.code === ErrorCode.MethodNotFound) return [];
    throw error;
  }
}
