/**
 * The 12 states a member's instance of an installed MCP server can be in. Status is tracked per member
 * (per instance), never per installation: one member's broken credentials do not hide tools from another.
 */
export const INSTANCE_STATUSES = [
  "awaiting_user_config",
  "provisioning",
  "command_received",
  "connecting",
  "discovering_tools",
  "syncing_tools",
  "online",
  "restarting",
  "offline",
  "error",
  "requires_reauth",
  "permanently_failed",
] as const;

export type InstanceStatus = (typeof INSTANCE_STATUSES)[number];

const STATUS_SET: ReadonlySet<string> = new Set(INSTANCE_STATUSES);

export function isInstanceStatus(x: unknown): x is InstanceStatus {
  return typeof x === "string" && STATUS_SET.has(x);
}
