import type { InstanceStatus } from "../status/statuses";
import type { InstanceEventType } from "./event-types";

/**
 * Raw detail in event payloads that only admins see: a process's stderr tail and an upstream's error text as
 * it came (redacted of secrets, but still another party's words, paths and hosts). Members get the event
 * without them: its type and counts, and a readable status message.
 */
export const ADMIN_ONLY_EVENT_DETAIL: Readonly<Partial<Record<InstanceEventType, readonly string[]>>> = Object.freeze({
  status_changed: ["detail"],
  server_crashed: ["stderrTail"],
  server_reconnecting: ["lastError"],
  server_health_degraded: ["lastError"],
  server_disconnected: ["reason"],
  discovery_failed: ["error"],
});

/**
 * What a member reads for a failure status. The worker's message for these is the classified upstream error
 * (a transport error, an HTTP error body): admins get it, members get a sentence they can act on.
 */
export const MEMBER_FAILURE_MESSAGES: Readonly<Partial<Record<InstanceStatus, string>>> = Object.freeze({
  offline: "The server cannot be reached right now; Switchboard keeps retrying on its own.",
  error: "The server failed with an error; a team admin can see the details.",
  requires_reauth:
    "The server did not accept your credentials: reconnect your account or update your settings in My servers.",
});

/** The status message as this viewer may see it (admins: unchanged). */
export function statusMessageForViewer(
  status: string,
  message: string | null,
  viewer: { admin: boolean },
): string | null {
  if (viewer.admin || message === null) return message;
  return MEMBER_FAILURE_MESSAGES[status as InstanceStatus] ?? message;
}

/** The payload as a plain member may see it (admins: unchanged). */
export function eventPayloadForViewer(
  type: string,
  payload: Record<string, unknown>,
  viewer: { admin: boolean },
): Record<string, unknown> {
  if (viewer.admin) return payload;
  if (type === "status_changed" && typeof payload.message === "string") {
    const { detail: _detail, ...rest } = payload;
    return { ...rest, message: statusMessageForViewer(String(payload.to), payload.message, viewer) };
  }
  const hidden = ADMIN_ONLY_EVENT_DETAIL[type as InstanceEventType];
  if (!hidden) return payload;
  return Object.fromEntries(Object.entries(payload).filter(([k]) => !hidden.includes(k)));
}
