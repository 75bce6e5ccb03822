import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { exposedToolName, toolState } from "../governance";
import type { MemberInstance } from "./types";

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
  // A toolset is a selection of tools: the instance's resources and prompts stay out of it.
  return {
    ...instance,
    tools,
    resources: selected ? [] : instance.resources,
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
