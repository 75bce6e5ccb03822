import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { countCatalogueTokens } from "../tokens";

/**
 * Router mode: instead of every tool of every online instance, the client sees four meta-tools and finds the
 * tool it needs by searching. A member with 20 servers of 50 tools pays for four tool definitions in every
 * prompt instead of a thousand.
 */
export const ROUTER_TOOL_NAMES = {
  search: "search_tools",
  call: "call_tool",
  listResources: "list_resources",
  readResource: "read_resource",
} as const;

export const SEARCH_DEFAULT_LIMIT = 10;
export const SEARCH_MAX_LIMIT = 50;

export const ROUTER_TOOLS: Tool[] = [
  {
    name: ROUTER_TOOL_NAMES.search,
    description:
      "Search the tools of your connected MCP servers by keywords. Returns each matching tool's name, description and input schema; then call it with call_tool.",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: "Keywords, e.g. 'create github issue'" },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: SEARCH_MAX_LIMIT,
          description: `At most this many tools (default ${SEARCH_DEFAULT_LIMIT})`,
        },
      },
      required: ["query"],
    },
  },
  {
    name: ROUTER_TOOL_NAMES.call,
    description: "Call a tool found with search_tools, by its exact name, with arguments matching its input schema.",
    inputSchema: {
      type: "object",
      properties: {
        name: { type: "string", description: "The tool name returned by search_tools" },
        arguments: { type: "object", description: "Arguments for the tool", additionalProperties: true },
      },
      required: ["name"],
    },
  },
  {
    name: ROUTER_TOOL_NAMES.listResources,
    description: "List the resources and resource templates of your connected MCP servers.",
    inputSchema: { type: "object", properties: {} },
  },
  {
    name: ROUTER_TOOL_NAMES.readResource,
    description: "Read a resource by the URI returned from list_resources.",
    inputSchema: { type: "object", properties: { uri: { type: "string" } }, required: ["uri"] },
  },
];

/** Tokens a client spends on the tool list in router mode (constant, whatever the catalogue). */
export function routerModeTokenCost(): number {
  return countCatalogueTokens(ROUTER_TOOLS).total;
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
}

/**
 * Ranks the visible tools (the caller passes only those of the member's online instances, so the limit applies
 * after filtering by status) by keyword hits: a word in the tool's name counts three, in its title two, in its
 * description one; ties keep catalogue order. Tools with no hit are left out.
 */
export function searchTools(tools: readonly Tool[], query: string, limit = SEARCH_DEFAULT_LIMIT): Tool[] {
  const terms = [...new Set(words(query))];
  const cap = Math.max(1, Math.min(SEARCH_MAX_LIMIT, Math.floor(limit)));
  if (terms.length === 0) return tools.slice(0, cap);
  const scored = tools
    .map((tool, index) => {
      const name = words(tool.name);
      const title = words(tool.title ?? "");
      const description = words(tool.description ?? "");
      let score = 0;
      for (const t of terms) {
        if (name.some((w) => w.startsWith(t))) score += 3;
        if (title.some((w) => w.startsWith(t))) score += 2;
        if (description.some((w) => w.startsWith(t))) score += 1;
      }
      return { tool, index, score };
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.slice(0, cap).map((s) => s.tool);
}
