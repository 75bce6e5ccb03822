import type { InstanceEventType } from "./event-types";
import type { LiveEvent } from "./live-event";

/** Events after which a member's visible catalogue may differ (the gateway drops its cached copy and tells clients). */
export const CATALOGUE_EVENTS = [
  "status_changed",
  "discovery_completed",
  "tools_changed",
  "catalogue_changed",
  "tool_review_pending",
  "tool_review_decided",
] as const satisfies readonly InstanceEventType[];

const catalogueEvents: ReadonlySet<string> = new Set(CATALOGUE_EVENTS);
export const changesCatalogue = (event: Pick<LiveEvent, "type">): boolean => catalogueEvents.has(event.type);

/** Events after which an open upstream connection may carry stale configuration or credentials. */
export const STALE_CONNECTION_EVENTS = [
  "server_restarted",
  "server_disconnected",
] as const satisfies readonly InstanceEventType[];

const staleConnectionEvents: ReadonlySet<string> = new Set(STALE_CONNECTION_EVENTS);

/** Whether the instance's open upstream connection must be dropped after this event (a restart counts too). */
export function staleConnection(event: LiveEvent): boolean {
  return (
    staleConnectionEvents.has(event.type) || (event.type === "status_changed" && event.payload.to === "restarting")
  );
}
