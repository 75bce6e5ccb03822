import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { collectPages } from "./paginate";
import type { DiscoveryClient, DiscoveryResult } from "./types";

/**
 * Some servers (e.g. `@modelcontextprotocol/server-everything`) list a tool only to clients that declared
 * sampling, elicitation or roots. Discovery lists on a connection offered all of them; this compares with the
 * tools a connection offered none of them sees, and records the difference, so the route shows those tools only
 * to sessions whose client declared one of them. A failure of that second list records nothing (every tool is
 * then shown to every client, as before).
 */
export async function markClientCapabilityTools(
  result: DiscoveryResult,
  plain: Pick<DiscoveryClient, "listTools">,
): Promise<DiscoveryResult> {
  let seen: Tool[];
  try {
    seen = await collectPages(async (cursor) => {
      const r = await plain.listTools(cursor ? { cursor } : undefined);
      return { items: r.tools, nextCursor: r.nextCursor };
    }, "tools/list");
  } catch {
    return result;
  }
  const names = new Set(seen.map((t) => t.name));
  return { ...result, clientCapabilityTools: result.tools.map((t) => t.name).filter((name) => !names.has(name)) };
}
