import type { Prompt, Resource, ResourceTemplate, Tool } from "@modelcontextprotocol/sdk/types.js";
import { rewriteUiLinks } from "./app-ui";

/**
 * Tools and prompts are exposed to clients as `${slug}-${name}`; resources as `${slug}|${uri}` (URIs are full
 * of `:` and `/`, so they get a separator that never appears in a slug), MCP Apps views as `ui://${slug}/...`. Names are never split back: routing
 * goes through the catalogue index (see catalogue-index.ts), because slugs and tool names both contain `-`.
 */
export function namespaceToolName(slug: string, tool: string): string {
  return `${slug}-${tool}`;
}

export function namespaceResourceUri(slug: string, uri: string): string {
  // An MCP Apps view keeps its `ui://` scheme, which hosts require before they render it (the ext-apps host SDK
  // refuses any other link): the slug becomes its first segment, `ui://{slug}/{rest}`. Slugs hold no `/`, so
  // two installations never produce the same URI.
  if (uri.startsWith(UI_SCHEME)) return `${UI_SCHEME}${slug}/${uri.slice(UI_SCHEME.length)}`;
  return `${slug}|${uri}`;
}

/** The URI scheme of MCP Apps views. */
export const UI_SCHEME = "ui://";

/** Many clients (OpenAI-compatible ones in particular) reject tool names longer than 64 characters. */
export const MAX_CLIENT_TOOL_NAME_LENGTH = 64;

export function isToolNameTooLong(name: string): boolean {
  return name.length > MAX_CLIENT_TOOL_NAME_LENGTH;
}

/** Copy of `tool` with a namespaced name; every other field and `_meta` kept. Never mutates the input. */
export function namespaceTool<T extends Tool>(slug: string, tool: T): T {
  const copy: T = { ...tool, name: namespaceToolName(slug, tool.name) };
  // An MCP Apps link names the resource as the client reads it back through the gateway.
  if (tool._meta) copy._meta = rewriteUiLinks(tool._meta, (uri) => namespaceResourceUri(slug, uri));
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

/** A tool result as far as its resource references go (the SDK's `CallToolResult` and the 2026 one alike). */
interface ResultWithResources {
  _meta?: Record<string, unknown>;
  content?: unknown;
}

/**
 * Copy of a tool result whose resource references name resources as the client reads them back through the
 * gateway: the MCP Apps links of its `_meta` and its `resource_link` items (with their own links). Embedded
 * resources keep their URI, as the contents of a `resources/read` do: they carry what they name. The result itself
 * when it links nothing. Never mutates the input.
 */
export function namespaceResultResources<R extends ResultWithResources>(slug: string, result: R): R {
  const rename = (uri: string) => namespaceResourceUri(slug, uri);
  let out = result;
  if (result._meta) {
    const meta = rewriteUiLinks(result._meta, rename);
    if (meta !== result._meta) out = { ...out, _meta: meta };
  }
  if (Array.isArray(result.content) && result.content.some(isResourceLink))
    out = {
      ...out,
      content: result.content.map((item: unknown) =>
        isResourceLink(item)
          ? { ...item, uri: rename(item.uri), ...(item._meta ? { _meta: rewriteUiLinks(item._meta, rename) } : {}) }
          : item,
      ),
    };
  return out;
}

type ResourceLink = { type: "resource_link"; uri: string; _meta?: Record<string, unknown> };

function isResourceLink(item: unknown): item is ResourceLink {
  if (typeof item !== "object" || item === null) return false;
  const { type, uri } = item as { type?: unknown; uri?: unknown };
  return type === "resource_link" && typeof uri === "string";
}
