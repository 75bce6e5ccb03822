import type { Prompt, Resource, ResourceTemplate, Tool } from "@modelcontextprotocol/sdk/types.js";
import {
  buildCatalogueIndex,
  namespacePrompt,
  namespaceResource,
  namespaceResourceTemplate,
  namespaceTool,
  namespaceToolName,
  namespaceResourceUri,
} from "../names";
import { toolsAvailable } from "../status";
import type { MemberInstance, ProxyMode } from "./types";

export interface Route {
  instance: MemberInstance;
  /** Name or URI as the upstream knows it. */
  target: string;
}

/** What the member sees (online instances only) and how a requested name finds its instance (any status). */
export interface Router {
  tools(): Tool[];
  resources(): Resource[];
  resourceTemplates(): ResourceTemplate[];
  prompts(): Prompt[];
  resolveTool(name: string): Route | undefined;
  resolveResource(uri: string): Route | undefined;
  resolvePrompt(name: string): Route | undefined;
  /** A resource template by the URI template the client was given (for completions). */
  resolveTemplate(uriTemplate: string): Route | undefined;
}

export function buildRouter(mode: ProxyMode, instances: readonly MemberInstance[]): Router {
  return mode === "namespaced" ? namespacedRouter(instances) : singleRouter(instances, mode.single);
}

/**
 * Routes by catalogue lookup over every instance, whatever its status: a client may call a tool it listed
 * earlier, and the admission check (not the router) decides whether the call goes through.
 */
function namespacedRouter(instances: readonly MemberInstance[]): Router {
  const byId = new Map(instances.map((i) => [i.instanceId, i]));
  const index = buildCatalogueIndex(instances);
  const online = instances.filter((i) => toolsAvailable(i.status));
  const route = (hit: { instanceId: string; name?: string; uri?: string } | undefined): Route | undefined => {
    const instance = hit && byId.get(hit.instanceId);
    return instance && { instance, target: hit.name ?? hit.uri ?? "" };
  };
  // When two items collide on one client-facing name, list only the one that calls route to.
  const owns = (instance: MemberInstance, resolved: { instanceId: string } | undefined) =>
    resolved?.instanceId === instance.instanceId;
  return {
    tools: once(() =>
      online.flatMap((i) =>
        i.tools
          .filter((t) => owns(i, index.resolveTool(namespaceToolName(i.slug, t.name))))
          .map((t) => namespaceTool(i.slug, t)),
      ),
    ),
    resources: once(() =>
      online.flatMap((i) =>
        i.resources
          .filter((r) => owns(i, index.resolveResource(namespaceResourceUri(i.slug, r.uri))))
          .map((r) => namespaceResource(i.slug, r)),
      ),
    ),
    resourceTemplates: once(() =>
      online.flatMap((i) => i.resourceTemplates.map((t) => namespaceResourceTemplate(i.slug, t))),
    ),
    prompts: once(() =>
      online.flatMap((i) =>
        i.prompts
          .filter((p) => owns(i, index.resolvePrompt(namespaceToolName(i.slug, p.name))))
          .map((p) => namespacePrompt(i.slug, p)),
      ),
    ),
    resolveTool: (name) => upstreamTool(route(index.resolveTool(name))),
    resolvePrompt: (name) => route(index.resolvePrompt(name)),
    resolveResource: (uri) => visibleResource(route(index.resolveResource(uri))),
    resolveTemplate: (uriTemplate) => {
      for (const i of instances) {
        const t = i.resourceTemplates.find((t) => namespaceResourceUri(i.slug, t.uriTemplate) === uriTemplate);
        if (t) return { instance: i, target: t.uriTemplate };
      }
      return undefined;
    },
  };
}

/**
 * A router is a snapshot of one catalogue: each of its lists is made on first use and the same array answered
 * after (callers never change them), so a member's tool list is built once per catalogue, not per list or call,
 * and its JSON text can be reused (`reusableList`).
 */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/** One installation exposed as if the client were talking to it directly: original names, no prefix. */
function singleRouter(instances: readonly MemberInstance[], instanceId: string): Router {
  const instance = instances.find((i) => i.instanceId === instanceId);
  const listed = instance && toolsAvailable(instance.status) ? instance : undefined;
  // Everything is forwarded to the one instance; the upstream judges names it does not know.
  const route = (target: string): Route | undefined => instance && { instance, target };
  // Under governance, tools and prompts go by the governed catalogue: a hidden one is unknown, a renamed one
  // reaches the upstream under its own name.
  const governed = instance?.governed === true;
  return {
    tools: () => listed?.tools ?? [],
    resources: () => listed?.resources ?? [],
    resourceTemplates: () => listed?.resourceTemplates ?? [],
    prompts: () => listed?.prompts ?? [],
    resolveTool: (name) =>
      !governed ? route(name) : instance.tools.some((t) => t.name === name) ? upstreamTool(route(name)) : undefined,
    // A disabled template's own URI template is not a resource either (completions ask by it).
    resolveResource: (uri) =>
      governed && instance.governance?.disabledResourceTemplates.includes(uri)
        ? undefined
        : visibleResource(route(uri)),
    resolvePrompt: (name) => (!governed || instance.prompts.some((p) => p.name === name) ? route(name) : undefined),
    resolveTemplate: (uriTemplate) =>
      !governed || instance.resourceTemplates.some((t) => t.uriTemplate === uriTemplate)
        ? route(uriTemplate)
        : undefined,
  };
}

/** A route to a resource governance hides (the UI of hidden tools) is no route: reading it is refused as unknown. */
function visibleResource(route: Route | undefined): Route | undefined {
  return route?.instance.hiddenResources?.has(route.target) ? undefined : route;
}

/** A route to a tool under the name its upstream knows (an admin may expose it under another). */
function upstreamTool(route: Route | undefined): Route | undefined {
  const upstream = route && route.instance.upstreamToolNames?.get(route.target);
  return upstream && route ? { ...route, target: upstream } : route;
}
