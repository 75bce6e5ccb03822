import type { CatalogueNumbers, CatalogueView } from "../catalogue";
import { namespaceToolName } from "../names";
import { toolsAvailable } from "../status";
import { countToolTokens } from "../tokens";
import { governInstances } from "./governed";
import type { MemberInstance } from "./types";

/** One tool in a view: its upstream name, the name clients list (`{slug}-{name}`) and its estimated tokens. */
export interface ViewTool {
  name: string;
  listedName: string;
  description: string;
  tokens: number;
}

/**
 * The one per-tool estimate (core `countToolTokens`: name, description, schema) over the tool as the view
 * defines it: its exposed name and description after governance. The `{slug}-` prefix the route adds is the
 * same for every tool of a server and stays out, so an untouched tool costs the same in all three views and the
 * discovered totals stored on an instance are exactly its `upstream` numbers.
 */
export function viewTools(instance: MemberInstance, view: CatalogueView): ViewTool[] {
  const shaped =
    view === "upstream"
      ? instance
      : governInstances([
          view === "installation" ? { ...instance, hiddenTools: [], selectedTools: undefined } : instance,
        ])[0]!;
  return shaped.tools.map((t) => ({
    name: shaped.upstreamToolNames?.get(t.name) ?? t.name,
    listedName: namespaceToolName(instance.slug, t.name),
    description: t.description ?? "",
    tokens: countToolTokens(t),
  }));
}

export function catalogueNumbers(tools: readonly { tokens: number }[]): CatalogueNumbers {
  return { toolCount: tools.length, tokens: tools.reduce((sum, t) => sum + t.tokens, 0) };
}

/**
 * A member's catalogue in one view: each instance's numbers, and the total over the instances whose tools are
 * listed now (online ones, as the route lists them).
 */
export function catalogueTotals(
  instances: readonly MemberInstance[],
  view: CatalogueView,
): { servers: Array<{ instanceId: string; numbers: CatalogueNumbers }>; total: CatalogueNumbers } {
  const servers = instances.map((i) => ({ instance: i, numbers: catalogueNumbers(viewTools(i, view)) }));
  const listed = servers.filter((s) => toolsAvailable(s.instance.status)).map((s) => s.numbers);
  return {
    servers: servers.map((s) => ({ instanceId: s.instance.instanceId, numbers: s.numbers })),
    total: {
      toolCount: listed.reduce((n, s) => n + s.toolCount, 0),
      tokens: listed.reduce((n, s) => n + s.tokens, 0),
    },
  };
}
