import { RootsListChangedNotificationSchema, SetLevelRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createProxyContext } from "./context";
import { admission } from "./handlers/admission";
import { clientRequests } from "./handlers/client-requests";
import { registerLists } from "./handlers/lists";
import { registerCompletions, registerPrompts } from "./handlers/prompts";
import { registerResourceReads, registerSubscriptions, resourceReads } from "./handlers/resources";
import { routerToolCalls } from "./handlers/router-tools";
import { registerSessionTasks, shownTask } from "./handlers/tasks";
import { registerToolCalls, toolCalls } from "./handlers/tools";
import { ROUTER_TOOLS } from "./router-mode";
import type { CatalogueKind, ProxyServer, ProxyServerOptions } from "./server-options";

export type { CatalogueKind, ProxyServer, ProxyServerOptions } from "./server-options";
export { proxyCapabilities } from "./capabilities";

/**
 * The MCP server a member's client talks to: their online instances' catalogue, routed to live upstreams. The
 * handlers live in `handlers/` (lists; tool calls and router mode's meta-tools; resources and subscriptions;
 * prompts and completions; requests relayed to the client), sharing one `ProxyContext`.
 */
export function createProxyServer(options: ProxyServerOptions): ProxyServer {
  const ctx = createProxyContext(options);
  const { server } = ctx;
  const listings = registerLists(ctx);
  const gate = admission(ctx);
  const sessionTasks = options.offers?.taskCalls ? registerSessionTasks(ctx) : undefined;
  const callTool = toolCalls(ctx, gate, sessionTasks);
  const readResource = resourceReads(ctx, gate, listings);
  registerToolCalls(ctx, callTool, routerToolCalls(ctx, listings, callTool, readResource));
  registerResourceReads(ctx, readResource);
  registerPrompts(ctx, gate);
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    ctx.setLogLevel(request.params.level);
    return {};
  });
  registerCompletions(ctx);
  const subscriptions = registerSubscriptions(ctx);

  const proxy: ProxyServer = {
    server,
    recovery: ctx.recovery,
    async listedTool(name) {
      return (ctx.routerMode ? ROUTER_TOOLS : (await ctx.router()).tools()).find((t) => t.name === name);
    },
    relayServerRequest: clientRequests(ctx),
    shownTask: (instanceId, task) => shownTask(ctx, instanceId, task),
    renewSubscriptions: (instanceId) => subscriptions.renew(instanceId),
    async dispose() {
      ctx.untapLogs();
      sessionTasks?.untap();
      await subscriptions.dispose();
    },
    async notifyCatalogueChanged(kinds: readonly CatalogueKind[] = ["tools", "resources", "prompts"]) {
      if (!server.transport) return;
      const send: Record<CatalogueKind, () => Promise<void>> = {
        tools: () => server.sendToolListChanged(),
        resources: () => server.sendResourceListChanged(),
        prompts: () => server.sendPromptListChanged(),
      };
      // A client that went away is not our caller's problem.
      await Promise.all(kinds.map((kind) => send[kind]().catch(() => {})));
    },
  };
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => proxy.onRootsListChanged?.());
  return proxy;
}
