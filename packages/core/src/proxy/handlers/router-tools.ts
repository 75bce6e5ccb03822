import { ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ProxyContext } from "../context";
import { ROUTER_TOOL_NAMES, SEARCH_DEFAULT_LIMIT, searchTools } from "../router-mode";
import type { Listings } from "./lists";
import type { ReadResource } from "./resources";
import type { CallTool } from "./tools";

/** The four meta-tools of router mode; `call_tool` and `read_resource` take the same path as direct calls. */
export function routerToolCalls(
  ctx: ProxyContext,
  { listedTools, listedResources }: Listings,
  callTool: CallTool,
  readResource: ReadResource,
): CallTool {
  const text = (value: unknown): CallToolResult => ({
    content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
  });
  return async (name, args = {}, _meta, extra) => {
    switch (name) {
      case ROUTER_TOOL_NAMES.search: {
        if (typeof args.query !== "string")
          throw new McpError(ErrorCode.InvalidParams, "search_tools needs a string `query`");
        const limit = typeof args.limit === "number" ? args.limit : SEARCH_DEFAULT_LIMIT;
        const found = searchTools(await listedTools(await ctx.router()), args.query, limit);
        return text({
          tools: found.map((t) => ({ name: t.name, description: t.description ?? "", inputSchema: t.inputSchema })),
        });
      }
      case ROUTER_TOOL_NAMES.call: {
        if (typeof args.name !== "string")
          throw new McpError(ErrorCode.InvalidParams, "call_tool needs the tool's `name`");
        const inner = args.arguments;
        if (inner !== undefined && (typeof inner !== "object" || inner === null || Array.isArray(inner))) {
          throw new McpError(ErrorCode.InvalidParams, "call_tool `arguments` must be an object");
        }
        return callTool(args.name, inner as Record<string, unknown> | undefined, _meta, extra);
      }
      case ROUTER_TOOL_NAMES.listResources: {
        // What resources/list would answer: the same policies and hidden views.
        const r = await ctx.router();
        return text({ resources: await listedResources(r), resourceTemplates: r.resourceTemplates() });
      }
      case ROUTER_TOOL_NAMES.readResource: {
        if (typeof args.uri !== "string") throw new McpError(ErrorCode.InvalidParams, "read_resource needs a `uri`");
        try {
          const result = await readResource(args.uri, _meta, extra);
          // The upstream needs the client's input first (2026-07-28): that is the answer, until the retry.
          if ((result as { resultType?: unknown }).resultType === "input_required") return result as never;
          return { content: result.contents.map((resource) => ({ type: "resource" as const, resource })) };
        } catch (error) {
          if (error instanceof McpError) return { isError: true, content: [{ type: "text", text: error.message }] };
          throw error;
        }
      }
      default:
        throw new McpError(
          ErrorCode.InvalidParams,
          `Unknown tool: ${name}. In router mode, use search_tools and call_tool.`,
        );
    }
  };
}
