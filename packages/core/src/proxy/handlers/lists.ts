import {
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  type Resource,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { hiddenUiResources, uiResourceUris } from "../../names";
import type { ProxyContext } from "../context";
import { reusableList } from "../message-body";
import { ROUTER_TOOLS } from "../router-mode";
import type { Route, Router } from "../router";
import type { CallKind } from "../types";

/** What the member may list, as the list handlers answer it and router mode's meta-tools search it. */
export interface Listings {
  /** The items the team's policies let this member list (a hidden one is as missing as one that never was). */
  listable<T extends { name?: string; uri?: string }>(
    kind: CallKind,
    items: T[],
    resolve: (item: T) => Route | undefined,
  ): Promise<T[]>;
  /**
   * Client-facing URIs of UI resources (MCP Apps) whose linking tools the team's policies all hide from this
   * member (core `hiddenUiResources`); with `uri`, asked only when a tool links to that one.
   */
  policyHiddenUi(r: Router, uri?: string): Promise<ReadonlySet<string>>;
  listedTools(r: Router): Promise<Tool[]>;
  /** The resources this member may list: the views of tools a policy hides, and what policies hide, left out. */
  listedResources(r: Router): Promise<Resource[]>;
}

/** tools/list, resources/list, resources/templates/list and prompts/list. */
export function registerLists(ctx: ProxyContext): Listings {
  const { options, server, router } = ctx;
  const plainLists = new WeakMap<Router, Tool[]>();
  const visibleTools = (r: Router): Tool[] => {
    if (!ctx.plainClient()) return r.tools();
    let tools = plainLists.get(r);
    if (!tools) {
      const all = r.tools();
      const any = ctx.instances()?.some((i) => (i.clientCapabilityTools?.length ?? 0) > 0) ?? true;
      tools = any ? all.filter((t) => !ctx.needsCapabilities(r.resolveTool(t.name))) : all;
      plainLists.set(r, tools);
    }
    return tools;
  };
  const listable: Listings["listable"] = async (kind, items, resolve) => {
    if (!options.policy?.hides || items.length === 0) return items;
    const hidden = await options.policy.hides(() =>
      items.map((item) => {
        const route = resolve(item);
        return {
          kind,
          installationId: route?.instance.installationId ?? "",
          installationSlug: route?.instance.slug,
          target: route?.target ?? "",
          annotations: kind === "tool" && route ? ctx.toolOf(route)?.annotations : undefined,
        };
      }),
    );
    // Nothing hidden: the same list, so that its JSON text made for an earlier answer serves this one too.
    return hidden?.includes(true) ? items.filter((_, i) => hidden[i] !== true) : items;
  };
  const policyHiddenUi: Listings["policyHiddenUi"] = async (r, uri) => {
    if (!options.policy?.hides) return new Set();
    const all = r.tools();
    if (!all.some((t) => uiResourceUris(t._meta).some((u) => uri === undefined || u === uri))) return new Set();
    return hiddenUiResources(all, await listable("tool", all, (t) => r.resolveTool(t.name)));
  };
  const listedTools = async (r: Router) => listable("tool", visibleTools(r), (t) => r.resolveTool(t.name));
  const listedResources = async (r: Router) => {
    const hiddenUi = await policyHiddenUi(r);
    const resources = r.resources().filter((x) => !hiddenUi.has(x.uri));
    return listable("resource", resources, (x) => r.resolveResource(x.uri));
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    // The router's list (or this member's view of it) is made once per catalogue: its JSON is too.
    tools: ctx.routerMode ? ROUTER_TOOLS : reusableList(await listedTools(await router())),
  }));
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: await listedResources(await router()),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: (await router()).resourceTemplates(),
  }));
  server.setRequestHandler(ListPromptsRequestSchema, async () => {
    const r = await router();
    return { prompts: await listable("prompt", r.prompts(), (x) => r.resolvePrompt(x.name)) };
  });
  return { listable, policyHiddenUi, listedTools, listedResources };
}
