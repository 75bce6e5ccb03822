import { createHash } from "node:crypto";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { MAX_CLIENT_TOOL_NAME_LENGTH, namespaceToolName } from "../names";

/**
 * Tool governance: which tools, prompts and resource templates of an installation reach members' clients, under
 * which names, and (pinning) only in the definition an admin approved. Pure data and functions: the route
 * applies them in one place (proxy/governed.ts), the console and the worker use the same rules.
 */

export type NewToolsPolicy = "on" | "off_until_reviewed";

/** An admin's setting for one tool (by its upstream name). */
export interface ToolRule {
  enabled: boolean;
  exposedName?: string | null;
  exposedDescription?: string | null;
  /** The approved definition's hash; what a pinned installation serves. */
  approvedHash?: string | null;
  /** Each call is held until an approver allows it (the default policy's `approval` effect; proxy/server.ts). */
  requiresApproval?: boolean;
}

export interface InstallationGovernance {
  newTools: NewToolsPolicy;
  pinned: boolean;
  /** By upstream tool name; a tool without a rule follows `newTools` (the worker writes rules as it finds tools). */
  tools: Readonly<Record<string, ToolRule>>;
  /** Prompt names and URI templates an admin turned off. */
  disabledPrompts: readonly string[];
  disabledResourceTemplates: readonly string[];
}

/** JSON with object keys sorted, so the same definition always hashes the same (jsonb reorders keys). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** What pinning approves of a tool: everything a model reads or a client relies on. */
export interface ToolDefinition {
  name: string;
  title?: string | null;
  description?: string | null;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}

export function toolDefinition(tool: ToolDefinition | Tool): ToolDefinition {
  return {
    name: tool.name,
    title: tool.title ?? null,
    description: tool.description ?? "",
    inputSchema: tool.inputSchema ?? null,
    outputSchema: tool.outputSchema ?? null,
    annotations: tool.annotations ?? null,
  };
}

/** SHA-256 (hex) of a tool's definition: name, title, description, input and output schema, annotations. */
export function toolDefinitionHash(tool: ToolDefinition | Tool): string {
  return createHash("sha256")
    .update(canonicalJson(toolDefinition(tool)))
    .digest("hex");
}

/** Why a tool is or is not served to members. */
export type ToolState = "on" | "off" | "new_off" | "awaiting_review";

/**
 * The state of one tool of one instance. `hash` is that instance's definition (members' instances of one
 * installation may report different ones); pinning compares it with the approved hash.
 */
export function toolState(
  governance: InstallationGovernance | undefined,
  name: string,
  hash: string | undefined,
): ToolState {
  if (!governance) return "on";
  const rule = governance.tools[name];
  if (governance.pinned && (!rule?.approvedHash || rule.approvedHash !== hash)) return "awaiting_review";
  if (!rule) return governance.newTools === "on" ? "on" : "new_off";
  return rule.enabled ? "on" : "off";
}

export function exposedToolName(governance: InstallationGovernance | undefined, name: string): string {
  return governance?.tools[name]?.exposedName || name;
}

/** Tool names as clients accept them (the MCP specification's recommended character set). */
export const EXPOSED_TOOL_NAME = /^[A-Za-z0-9_.-]+$/;
export const MAX_EXPOSED_DESCRIPTION_LENGTH = 4000;

export type ExposedNameProblem = { tool: string; message: string };

/**
 * Checks an installation's exposed tool names: the character set, the 64-character limit clients enforce on the
 * namespaced name (`{slug}-{name}`), and uniqueness among the installation's tools (renamed or not). Returns
 * one problem per offending tool, with a sentence an admin can act on.
 */
export function exposedNameProblems(
  slug: string,
  upstreamNames: readonly string[],
  overrides: Readonly<Record<string, string | null | undefined>>,
): ExposedNameProblem[] {
  const problems: ExposedNameProblem[] = [];
  const seen = new Map<string, string>();
  for (const tool of upstreamNames) {
    const exposed = overrides[tool] || tool;
    const renamed = Boolean(overrides[tool]);
    if (renamed && !EXPOSED_TOOL_NAME.test(exposed)) {
      problems.push({ tool, message: `“${exposed}” may contain only letters, digits, “_”, “-” and “.”.` });
      continue;
    }
    const full = namespaceToolName(slug, exposed);
    if (renamed && full.length > MAX_CLIENT_TOOL_NAME_LENGTH) {
      problems.push({
        tool,
        message: `“${full}” is ${full.length} characters; clients accept at most ${MAX_CLIENT_TOOL_NAME_LENGTH}.`,
      });
      continue;
    }
    const other = seen.get(exposed);
    if (other !== undefined) {
      problems.push({
        tool,
        message: `“${exposed}” is already the name of ${other === exposed ? "another tool" : `“${other}”`}.`,
      });
      continue;
    }
    seen.set(exposed, tool);
  }
  return problems;
}

/** A toolset's name is a path segment of `/api/mcp/sets/{name}`: the same rule as team slugs. */
export const TOOLSET_NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const TOOLSET_NAME_MAX = 40;
export * from "./quotas";
export * from "./decision";
export * from "./approvals";
export * from "./approval-console";
