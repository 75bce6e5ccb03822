import type { InstanceStatus } from "./statuses";

export const STATUS_LABELS: Readonly<Record<InstanceStatus, string>> = Object.freeze({
  awaiting_user_config: "Needs your settings",
  provisioning: "Provisioning",
  command_received: "Starting",
  connecting: "Connecting",
  discovering_tools: "Discovering tools",
  syncing_tools: "Syncing tools",
  online: "Online",
  restarting: "Restarting",
  offline: "Offline",
  error: "Error",
  requires_reauth: "Needs re-authentication",
  permanently_failed: "Stopped after repeated crashes",
});

export type StatusTone = "ok" | "progress" | "warning" | "danger" | "muted";

/**
 * Colour family for the console. offline is a warning (it recovers by itself); error and permanently_failed
 * are danger; awaiting_user_config is muted (nothing is wrong, it is simply not set up yet).
 */
export function statusTone(status: InstanceStatus): StatusTone {
  switch (status) {
    case "online":
      return "ok";
    case "provisioning":
    case "command_received":
    case "connecting":
    case "discovering_tools":
    case "syncing_tools":
    case "restarting":
      return "progress";
    case "offline":
    case "requires_reauth":
      return "warning";
    case "error":
    case "permanently_failed":
      return "danger";
    case "awaiting_user_config":
      return "muted";
  }
}
