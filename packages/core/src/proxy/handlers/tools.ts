import { CallToolRequestSchema, ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { namespaceResultResources } from "../../names";
import { isRepeatableTool } from "../../policies/retry-safety";
import type { ProxyContext } from "../context";
import { CallRejectedError, forward, recordRefusal } from "../forward";
import { governanceRefusal } from "../governed";
import { guardCall } from "../guarded";
import { asRelayedError, relayedCall, type DownstreamExtra } from "../relay";
import type { Route } from "../router";
import type { Admission } from "./admission";
import { offersTaskCalls, type SessionTaskRelay } from "./tasks";

export type CallTool = (
  name: string,
  args: Record<string, unknown> | undefined,
  _meta: Record<string, unknown> | undefined,
  extra: DownstreamExtra,
  /** A 2025-11-25 task-augmented call's `task` (see `handlers/tasks.ts`). */
  task?: { ttl?: number },
) => Promise<CallToolResult>;

/**
 * A tool call by the name the member's catalogue lists: guardrails, the team's policies and approvals, quotas,
 * then the upstream (with retries and recovery, `forward`). A tool's failure is a tool result the model reads.
 */
export function toolCalls(
  ctx: ProxyContext,
  { admit, takeQuota, sendToFixPage }: Admission,
  sessionTasks?: SessionTaskRelay,
): CallTool {
  const { options, deps, mode, passing } = ctx;
  /** A tool result's resource links (MCP Apps links, resource_link items) as this client reads them. */
  const withClientUiLinks = (route: Route, result: CallToolResult): CallToolResult =>
    mode !== "namespaced" ? result : namespaceResultResources(route.instance.slug, result);

  return async (name, args, _meta, extra, task) => {
    const routes = await ctx.router();
    const route = routes.resolveTool(name);
    if (!route) {
      // Governance keeps it out of this session: the client hears of no such tool, the request log of the refusal.
      const instances = ctx.instances();
      const refused = instances && governanceRefusal(mode, instances, name);
      if (refused)
        recordRefusal(
          deps,
          { route: refused.route, kind: "tool", requested: name, arguments: args },
          refused.reason,
          "governance",
        );
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
    if (ctx.needsCapabilities(route) && ctx.plainClient())
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    // Guardrails first: a policy, an approval and a quota see the arguments as they would be sent (redacted where
    // an action says so), and a call they refuse is logged with every match masked.
    const guard = await guardCall(options.guardrails, deps, route, "tool", name, args);
    const held = await admit(route, "tool", name, guard.sent, guard.logged);
    if (held) return held as CallToolResult;
    if (options.quota) await takeQuota(options.quota, route, name, guard.logged);
    // A task-augmented call goes up as one only where the session relays tasks and the upstream offers them; a
    // client asking it of any other tool is told so, as the 2025-11-25 revision says (-32601).
    const asTask = task !== undefined && sessionTasks !== undefined;
    if (asTask && !offersTaskCalls(route.instance))
      throw new McpError(ErrorCode.MethodNotFound, `Tool ${name} cannot run as a task`);
    // An attempt whose upstream asked the client something reached the upstream: it is not sent again.
    let asked = false;
    try {
      const result = (await forward(deps, {
        route,
        kind: "tool",
        requested: name,
        arguments: guard.logged,
        guardrailFindings: guard.findings,
        signal: extra.signal,
        run: (client) =>
          ctx.tracked(route.instance.instanceId, client, extra, async (deadline) => {
            try {
              const relayed = passing.upstreamCall(
                relayedCall({ name: route.target, arguments: guard.sent, _meta }, extra, deadline),
              );
              const callOptions = { ...relayed.options, toolInputSchema: ctx.toolOf(route)?.inputSchema };
              const params = asTask ? { ...relayed.params, task } : relayed.params;
              if (asTask) sessionTasks.tapTaskStatus(route.instance.instanceId, client);
              const result = await ctx.relayLog(client, extra, () => client.callTool(params, callOptions));
              if (asTask) return sessionTasks.passedTask(route, result);
              return guard.result(passing.passedTask(route.instance.instanceId, result));
            } finally {
              asked ||= deadline.asked;
            }
          }),
        isToolError: (result) => result.isError === true,
        mayRetry: () => !asked,
        // Asked only after a failure: the annotations of the tool as the client listed it.
        repeatable: () => isRepeatableTool(routes.tools().find((tool) => tool.name === name)?.annotations),
      })) as CallToolResult;
      const refused = passing.unanswerableInput(result);
      return refused ? { isError: true, content: [{ type: "text", text: refused }] } : withClientUiLinks(route, result);
    } catch (error) {
      // Tool failures go back as a tool result so the model reads the reason and can tell the member.
      if (error instanceof CallRejectedError) {
        if (error.outcome === "blocked") await sendToFixPage(route.instance, error.message);
        return { isError: true, content: [{ type: "text", text: error.message }] };
      }
      throw asRelayedError(error);
    }
  };
}

/** tools/call: the catalogue's tools, or router mode's meta-tools. */
export function registerToolCalls(ctx: ProxyContext, callTool: CallTool, callRouterTool: CallTool): void {
  ctx.server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args, _meta, task } = request.params;
    if (!ctx.routerMode) return callTool(name, args, _meta, extra, task);
    return callRouterTool(name, args ?? {}, _meta, extra);
  });
}
