import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { exposedToolName, toolState, type ToolState } from "../governance";
import { hiddenUiResources, namespaceToolName } from "../names";
import type { Route } from "./router";
import type { MemberInstance, ProxyMode } from "./types";

/**
 * The one place where tool governance shapes what a session sees: admin settings (on/off, exposed names and
 * descriptions, new tools off until reviewed, pinned definitions), the member's own hidden tools and a toolset's
 * selection. Lists, calls, router-mode search and completions all route over its output, so what a member
 * cannot see they cannot call: a hidden tool is simply not in the catalogue ("Unknown tool"), exactly like one
 * that never existed.
 */
export function governInstances(instances: readonly MemberInstance[]): MemberInstance[] {
  return instances.map(governInstance);
}

function governInstance(instance: MemberInstance): MemberInstance {
  const { governance, toolHashes, hiddenTools, selectedTools } = instance;
  const hidden = new Set(hiddenTools ?? []);
  const selected = selectedTools ? new Set(selectedTools) : undefined;
  const upstreamToolNames = new Map<string, string>();
  const tools: Tool[] = [];
  for (const tool of instance.tools) {
    if (toolState(governance, tool.name, toolHashes?.[tool.name]) !== "on") continue;
    if (hidden.has(tool.name) || (selected && !selected.has(tool.name))) continue;
    const rule = governance?.tools[tool.name];
    const name = exposedToolName(governance, tool.name);
    if (name !== tool.name) upstreamToolNames.set(name, tool.name);
    tools.push(
      rule?.exposedDescription
        ? { ...tool, name, description: rule.exposedDescription }
        : name !== tool.name
          ? { ...tool, name }
          : tool,
    );
  }
  const offPrompts = new Set(governance?.disabledPrompts ?? []);
  const offTemplates = new Set(governance?.disabledResourceTemplates ?? []);
  // An MCP Apps UI resource goes with the tools that link to it: hidden when all of them are.
  const hiddenResources = hiddenUiResources(instance.tools, tools);
  // A toolset is a selection of tools: the instance's resources and prompts stay out of it.
  return {
    ...instance,
    tools,
    resources: selected ? [] : instance.resources.filter((r) => !hiddenResources.has(r.uri)),
    hiddenResources,
    resourceTemplates: selected ? [] : instance.resourceTemplates.filter((t) => !offTemplates.has(t.uriTemplate)),
    prompts: selected ? [] : instance.prompts.filter((p) => !offPrompts.has(p.name)),
    upstreamToolNames,
    governed: governance !== undefined || hidden.size > 0 || selected !== undefined,
  };
}

/** A member's instances narrowed to a toolset's selection (governInstances then applies the rest). */
export function selectToolset<T extends { installationId: string }>(
  rows: readonly T[],
  selection: ReadonlyArray<{ installationId: string; toolName: string }>,
): Array<T & { selectedTools: string[] }> {
  return rows.map((r) => ({
    ...r,
    selectedTools: selection.filter((s) => s.installationId === r.installationId).map((s) => s.toolName),
  }));
}

/** Why governance keeps a tool from a member's session, as the request log says it; undefined when it does not. */
function refusalReason(instance: MemberInstance, tool: string): string | undefined {
  const state = toolState(instance.governance, tool, instance.toolHashes?.[tool]);
  if (state !== "on") return STATE_REASON[state](tool, instance.name);
  if (instance.hiddenTools?.includes(tool)) return `The member hid ${tool} of ${instance.name} from their clients.`;
  if (instance.selectedTools && !instance.selectedTools.includes(tool))
    return `${tool} of ${instance.name} is not in this connection's toolset.`;
  return undefined;
}

const STATE_REASON: Record<Exclude<ToolState, "on">, (tool: string, server: string) => string> = {
  off: (tool, server) => `An admin turned ${tool} of ${server} off.`,
  new_off: (tool, server) => `${tool} of ${server} is new and stays off until an admin reviews it.`,
  awaiting_review: (tool, server) =>
    `${tool} of ${server} changed since an admin approved it and stays off until they review it again.`,
};

/**
 * A call to a name the governed catalogue does not know: the tool it names among the member's instances as
 * discovered (by the name a client would have been given, renamed or not), when governance is what keeps it out
 * (turned off, awaiting review, hidden by the member, outside the toolset), with the reason. Undefined for a name
 * that names no tool at all. Only asked on that refusal path, so a plain scan is enough.
 */
export function governanceRefusal(
  mode: ProxyMode,
  instances: readonly MemberInstance[],
  requested: string,
): { route: Route; reason: string } | undefined {
  const single = mode === "namespaced" ? undefined : mode.single;
  for (const instance of instances) {
    if (single !== undefined && instance.instanceId !== single) continue;
    const clientName = (name: string) => (single === undefined ? namespaceToolName(instance.slug, name) : name);
    for (const tool of instance.tools) {
      const names = [tool.name, exposedToolName(instance.governance, tool.name)].map(clientName);
      if (!names.includes(requested)) continue;
      const reason = refusalReason(instance, tool.name);
      if (reason) return { route: { instance, target: tool.name }, reason };
    }
  }
  return undefined;
}
