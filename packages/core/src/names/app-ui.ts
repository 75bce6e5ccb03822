import type { Tool } from "@modelcontextprotocol/sdk/types.js";

/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension, npm `@modelcontextprotocol/ext-apps`): a tool names the
 * `ui://` resource that renders it in `_meta.ui.resourceUri`; early drafts used the flat `_meta["ui/resourceUri"]`
 * key, which the SDK still writes beside the new one; servers written for the OpenAI Apps SDK send the same `ui://`
 * URI in `_meta["openai/outputTemplate"]`. This is the one place that knows those keys.
 */
const LEGACY_KEY = "ui/resourceUri";
const OPENAI_KEY = "openai/outputTemplate";
/** The flat `_meta` keys that hold a UI resource link (beside the nested `ui.resourceUri`). */
const FLAT_KEYS = [LEGACY_KEY, OPENAI_KEY] as const;

/** The UI resource URIs a tool's (or a tool result's) `_meta` names, all keys, without duplicates. */
export function uiResourceUris(meta: Record<string, unknown> | undefined): string[] {
  if (!meta) return [];
  const uris = new Set<string>();
  const ui = meta.ui;
  if (typeof ui === "object" && ui !== null && !Array.isArray(ui)) {
    const uri = (ui as { resourceUri?: unknown }).resourceUri;
    if (typeof uri === "string") uris.add(uri);
  }
  for (const key of FLAT_KEYS) {
    const uri = meta[key];
    if (typeof uri === "string") uris.add(uri);
  }
  return [...uris];
}

/** Copy of `meta` with every UI resource link passed through `rewrite`; `meta` itself when it has none. */
export function rewriteUiLinks<M extends Record<string, unknown> | undefined>(
  meta: M,
  rewrite: (uri: string) => string,
): M {
  if (!meta) return meta;
  let out: Record<string, unknown> | undefined;
  const ui = meta.ui;
  if (typeof ui === "object" && ui !== null && !Array.isArray(ui)) {
    const uri = (ui as { resourceUri?: unknown }).resourceUri;
    if (typeof uri === "string") out = { ...meta, ui: { ...ui, resourceUri: rewrite(uri) } };
  }
  for (const key of FLAT_KEYS) {
    const uri = meta[key];
    if (typeof uri === "string") out = { ...(out ?? meta), [key]: rewrite(uri) };
  }
  return (out ?? meta) as M;
}

/**
 * The governance rule for UI resources: a UI resource is the view of the tools that link to it, so it is hidden
 * when tools link to it and none of them is visible to the member. Returns the URIs (as the tools name them) that
 * `visible` leaves without a visible tool among `all`. A resource no tool links to is an ordinary resource.
 */
export function hiddenUiResources(
  all: ReadonlyArray<Pick<Tool, "_meta">>,
  visible: ReadonlyArray<Pick<Tool, "_meta">>,
): Set<string> {
  const hidden = new Set(all.flatMap((t) => uiResourceUris(t._meta)));
  for (const tool of visible) for (const uri of uiResourceUris(tool._meta)) hidden.delete(uri);
  return hidden;
}
