import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";

import { namespaceResourceUri, namespaceToolName, UI_SCHEME } from "./namespace";

export interface CatalogueEntry {
  instanceId: string;
  slug: string;
  tools: ReadonlyArray<{ name: string }>;
  resources: ReadonlyArray<{ uri: string }>;
  resourceTemplates: ReadonlyArray<{ uriTemplate: string }>;
  prompts: ReadonlyArray<{ name: string }>;
}

export interface ResolvedName {
  instanceId: string;
  slug: string;
  /** The name as the upstream server knows it. */
  name: string;
}

export interface ResolvedResource {
  instanceId: string;
  slug: string;
  /** The URI as the upstream server knows it. */
  uri: string;
  /** Set when the URI was routed through a resource template rather than an exact listed resource. */
  uriTemplate?: string;
}

export interface NameCollision {
  kind: "tool" | "prompt" | "resource";
  /** The client-facing name (or URI) that several upstream items produce. */
  namespaced: string;
  /** The item that requests are routed to. */
  winner: ResolvedName;
  /** Items that produce the same name and are therefore unreachable; discovery should warn about them. */
  shadowed: ResolvedName[];
}

export interface CatalogueIndex {
  resolveTool(namespaced: string): ResolvedName | undefined;
  resolvePrompt(namespaced: string): ResolvedName | undefined;
  resolveResource(namespacedUri: string): ResolvedResource | undefined;
  readonly collisions: readonly NameCollision[];
}

/**
 * Collision rule: two items collide when they produce the same client-facing string, e.g. slug "my-server" +
 * tool "get-data" and slug "my" + tool "server-get-data" both give "my-server-get-data". The item from the
 * LONGER slug wins (the more specific server, and the same preference resolveResource uses for templates);
 * on equal slugs (the same slug on two instances) the smaller instanceId wins. The outcome therefore never
 * depends on the order entries arrive in. Every collision is reported in `collisions`.
 */
function compareCandidates(a: ResolvedName, b: ResolvedName): number {
  if (a.slug.length !== b.slug.length) return b.slug.length - a.slug.length;
  if (a.instanceId !== b.instanceId) return a.instanceId < b.instanceId ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function buildMap(
  kind: NameCollision["kind"],
  items: Array<{ key: string; value: ResolvedName }>,
  collisions: NameCollision[],
): Map<string, ResolvedName> {
  const grouped = new Map<string, ResolvedName[]>();
  for (const { key, value } of items) {
    const list = grouped.get(key);
    if (list) list.push(value);
    else grouped.set(key, [value]);
  }
  const map = new Map<string, ResolvedName>();
  for (const [key, candidates] of grouped) {
    const sorted = [...candidates].sort(compareCandidates);
    const [winner, ...shadowed] = sorted;
    if (!winner) continue;
    map.set(key, winner);
    if (shadowed.length > 0) collisions.push({ kind, namespaced: key, winner, shadowed });
  }
  return map;
}

/**
 * Routing table from client-facing names back to (instance, upstream name), built from the member's catalogue.
 * Names are resolved by lookup only; nothing is split on a separator.
 */
export function buildCatalogueIndex(entries: readonly CatalogueEntry[]): CatalogueIndex {
  const collisions: NameCollision[] = [];

  const tools = buildMap(
    "tool",
    entries.flatMap((e) =>
      e.tools.map((t) => ({
        key: namespaceToolName(e.slug, t.name),
        value: { instanceId: e.instanceId, slug: e.slug, name: t.name },
      })),
    ),
    collisions,
  );
  const prompts = buildMap(
    "prompt",
    entries.flatMap((e) =>
      e.prompts.map((p) => ({
        key: namespaceToolName(e.slug, p.name),
        value: { instanceId: e.instanceId, slug: e.slug, name: p.name },
      })),
    ),
    collisions,
  );
  const resources = buildMap(
    "resource",
    entries.flatMap((e) =>
      e.resources.map((r) => ({
        key: namespaceResourceUri(e.slug, r.uri),
        value: { instanceId: e.instanceId, slug: e.slug, name: r.uri },
      })),
    ),
    collisions,
  );

  // Templates grouped by slug, slugs tried longest first so "my-server|..." is never routed to "my".
  const templatesBySlug = new Map<string, Array<{ instanceId: string; uriTemplate: string; matcher: UriTemplate }>>();
  for (const e of [...entries].sort((a, b) =>
    a.instanceId < b.instanceId ? -1 : a.instanceId > b.instanceId ? 1 : 0,
  )) {
    for (const t of e.resourceTemplates) {
      let matcher: UriTemplate;
      try {
        matcher = new UriTemplate(t.uriTemplate);
      } catch {
        continue; // An invalid template from an upstream cannot route anything.
      }
      const list = templatesBySlug.get(e.slug) ?? [];
      list.push({ instanceId: e.instanceId, uriTemplate: t.uriTemplate, matcher });
      templatesBySlug.set(e.slug, list);
    }
  }
  const slugsLongestFirst = [...templatesBySlug.keys()].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));

  return {
    collisions,
    resolveTool: (namespaced) => tools.get(namespaced),
    resolvePrompt: (namespaced) => prompts.get(namespaced),
    resolveResource(namespacedUri) {
      const exact = resources.get(namespacedUri);
      if (exact) return { instanceId: exact.instanceId, slug: exact.slug, uri: exact.name };
      for (const slug of slugsLongestFirst) {
        const prefix = namespaceResourceUri(slug, "");
        const uiPrefix = namespaceResourceUri(slug, UI_SCHEME);
        const rest = namespacedUri.startsWith(prefix)
          ? namespacedUri.slice(prefix.length)
          : namespacedUri.startsWith(uiPrefix)
            ? UI_SCHEME + namespacedUri.slice(uiPrefix.length)
            : undefined;
        if (rest === undefined) continue;
        for (const t of templatesBySlug.get(slug) ?? []) {
          if (t.matcher.match(rest)) return { instanceId: t.instanceId, slug, uri: rest, uriTemplate: t.uriTemplate };
        }
      }
      return undefined;
    },
  };
}
