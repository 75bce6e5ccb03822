import type { Prompt, Resource, ResourceTemplate, Tool } from "@modelcontextprotocol/sdk/types.js";

/**
 * Tools and prompts are exposed to clients as `${slug}-${name}`; resources as `${slug}|${uri}` (URIs are full
 * of `:` and `/`, so they get a separator that never appears in a slug). Names are never split back: routing
 * goes through the catalogue index (see catalogue-index.ts), because slugs and tool names both contain `-`.
 */
export function namespaceToolName(slug: string, tool: string): string {
  return `${slug}-${tool}`;
}

export function namespaceResourceUri(slug: string, uri: string): string {
  return `${slug}|${uri}`;
}

/** Many clients (OpenAI-compatible ones in particular) reject tool names longer than 64 characters. */
export const MAX_CLIENT_TOOL_NAME_LENGTH = 64;

export function isToolNameTooLong(name: string): boolean {
  return name.length > MAX_CLIENT_TOOL_NAME_LENGTH;
}

/** Rewrites an MCP Apps UI resource pointer so the client reads it back through the gateway. */
function namespaceMeta(slug: string, meta: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!meta) return meta;
  let out: Record<string, unknown> | undefined;
  const ui = meta.ui;
  if (typeof ui === "object" && ui !== null && !Array.isArray(ui)) {
    const uri = (ui as { resourceUri?: unknown }).resourceUri;
    if (typeof uri === "string") {
      out = { ...meta, ui: { ...ui, resourceUri: namespaceResourceUri(slug, uri) } };
    }
  }
  // Early MCP Apps drafts used a flat key; servers in the wild still send it.
  const legacy = meta["ui/resourceUri"];
  if (typeof legacy === "string") {
    out = { ...(out ?? meta), "ui/resourceUri": namespaceResourceUri(slug, legacy) };
  }
  return out ?? meta;
}

/** Copy of `tool` with a namespaced name; every other field and `_meta` kept. Never mutates the input. */
export function namespaceTool<T extends Tool>(slug: string, tool: T): T {
  const copy: T = { ...tool, name: namespaceToolName(slug, tool.name) };
  if (tool._meta) copy._meta = namespaceMeta(slug, tool._meta);
  return copy;
}

export function namespaceResource<T extends Resource>(slug: string, resource: T): T {
  return { ...resource, uri: namespaceResourceUri(slug, resource.uri) };
}

export function namespaceResourceTemplate<T extends ResourceTemplate>(slug: string, template: T): T {
  return { ...template, uriTemplate: namespaceResourceUri(slug, template.uriTemplate) };
}

export function namespacePrompt<T extends Prompt>(slug: string, prompt: T): T {
  return { ...prompt, name: namespaceToolName(slug, prompt.name) };
}
