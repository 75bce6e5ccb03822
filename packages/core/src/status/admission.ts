import type { InstanceStatus } from "./statuses";

/** Tools of an instance are listed to its member only while it is online. */
export function toolsAvailable(status: InstanceStatus): boolean {
  return status === "online";
}

export type CallBlockReason = "requires_reauth" | "awaiting_user_config" | "permanently_failed" | "not_ready";

export type CallAdmission =
  { allowed: true; recovering: boolean } | { allowed: false; reason: CallBlockReason; message: string };

/**
 * Whether the proxy forwards a tool call (or resource read, prompt get) to the upstream, given the member's
 * instance status. Tools are only *listed* when online, but a client may call a name it cached earlier.
 *
 * - online: forward.
 * - offline, error: forward with `recovering: true`. The call is the fastest probe we have; if it succeeds the
 *   proxy reports recovery (-> connecting, async re-discovery) and still returns the result.
 * - connecting, discovering_tools, syncing_tools: forward, not recovering. The upstream is reachable or being
 *   reached (this is also where a recovery that a previous call triggered sits); the real answer beats a
 *   synthetic "wait".
 * - provisioning, command_received, restarting: blocked as `not_ready`. The worker has not applied the current
 *   launch yet (restarting means the old one is being torn down), so a call would hit a stale or absent server.
 * - requires_reauth, awaiting_user_config: blocked; only the member can fix them (re-authenticate, fill fields).
 * - permanently_failed: blocked; forwarding would spawn the crashing stdio process again, which is exactly what
 *   the crash limit stops. Only an explicit restart leaves this state.
 */
export function callAdmission(status: InstanceStatus): CallAdmission {
  switch (status) {
    case "online":
    case "connecting":
    case "discovering_tools":
    case "syncing_tools":
      return { allowed: true, recovering: false };
    case "offline":
    case "error":
      return { allowed: true, recovering: true };
    case "requires_reauth":
      return {
        allowed: false,
        reason: "requires_reauth",
        message: "Your instance of this server requires re-authentication. Re-authorize it in the console.",
      };
    case "awaiting_user_config":
      return {
        allowed: false,
        reason: "awaiting_user_config",
        message: "This server needs your personal settings before it can run. Configure it in the console.",
      };
    case "permanently_failed":
      return {
        allowed: false,
        reason: "permanently_failed",
        message: "This server crashed repeatedly and was stopped. An admin must restart it.",
      };
    case "provisioning":
    case "command_received":
    case "restarting":
      return {
        allowed: false,
        reason: "not_ready",
        message: "This server is starting. Try again in a few seconds.",
      };
  }
}
