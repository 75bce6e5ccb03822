import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { isToolNameTooLong, namespaceToolName } from "../names";
import { countCatalogueTokens } from "../tokens";
import { collectPages } from "./paginate";
import type { CompleteRequest, Prompt, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
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
  const declared = client.getServerCapabilities() ?? {};
  const resources = await optional(declared.resources !== undefined, false, () =>
    collectPages(async (cursor) => {
      const r = await client.listResources(cursor ? { cursor } : undefined);
      return { items: r.resources, nextCursor: r.nextCursor };
    }, "resources/list"),
  );
  const resourceTemplates = await optional(declared.resources !== undefined, false, () =>
    collectPages(async (cursor) => {
      const r = await client.listResourceTemplates(cursor ? { cursor } : undefined);
      return { items: r.resourceTemplates, nextCursor: r.nextCursor };
    }, "resources/templates/list"),
  );
  const prompts = await optional(declared.prompts !== undefined, false, () =>
    collectPages(async (cursor) => {
      const r = await client.listPrompts(cursor ? { cursor } : undefined);
      return { items: r.prompts, nextCursor: r.nextCursor };
    }, "prompts/list"),
  );

  const protocolVersion = client.getProtocolVersion?.() ?? null;
  const capabilities =
    declared.completions === undefined &&
    protocolVersion === "2026-07-28" &&
    (await servesCompletions(client, prompts, resourceTemplates))
      ? { ...declared, completions: {} }
      : declared;

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
    protocolVersion,
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

/**
 * Whether a 2026-07-28 server that left `completions` out of its `server/discover` answer serves
 * `completion/complete` anyway: that answer is often written by hand (the conformance repository's reference server
 * omits completions and serves them), and the route offers completions only for upstreams known to have them. One
 * request for the first prompt argument or template variable; any result counts, any error does not. It waits at
 * most COMPLETION_PROBE_TIMEOUT_MS: a server that hangs on it does not hold discovery up.
 */
export const COMPLETION_PROBE_TIMEOUT_MS = 5_000;

async function servesCompletions(
  client: DiscoveryClient,
  prompts: readonly Prompt[],
  templates: readonly ResourceTemplate[],
): Promise<boolean> {
  if (!client.complete) return false;
  const prompt = prompts.find((p) => p.arguments?.length);
  const template = templates.find((t) => templateVariable(t.uriTemplate) !== undefined);
  const params: CompleteRequest["params"] | undefined = prompt
    ? { ref: { type: "ref/prompt", name: prompt.name }, argument: { name: prompt.arguments![0]!.name, value: "" } }
    : template
      ? {
          ref: { type: "ref/resource", uri: template.uriTemplate },
          argument: { name: templateVariable(template.uriTemplate)!, value: "" },
        }
      : undefined;
  if (!params) return false;
  try {
    await client.complete(params, { timeout: COMPLETION_PROBE_TIMEOUT_MS });
    return true;
  } catch {
    return false;
  }
}

/** The first variable of an RFC 6570 URI template (`{+path}`, `{id*}`, `{?q,r}` give `path`, `id`, `q`). */
function templateVariable(uriTemplate: string): string | undefined {
  const expression = /\{[+#./;?&]?([A-Za-z0-9_.%]+)/.exec(uriTemplate);
  return expression?.[1];
}
