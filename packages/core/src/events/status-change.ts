import { toolsAvailable } from "../status/admission";
import type { InstanceStatus } from "../status/statuses";
import type { EventPayload } from "./event-types";

export type StatusChangeEvent =
  | { type: "status_changed"; payload: EventPayload<"status_changed"> }
  | { type: "catalogue_changed"; payload: EventPayload<"catalogue_changed"> };

/**
 * The live events one status change publishes, whichever process wrote it: status_changed, and
 * catalogue_changed when the instance's tools appear or disappear (entering or leaving online), which the
 * route turns into tools/list_changed for the member's sessions.
 */
export function statusChangeEvents(change: {
  from: InstanceStatus;
  to: InstanceStatus;
  message?: string | null;
  detail?: string | null;
}): StatusChangeEvent[] {
  const payload: EventPayload<"status_changed"> = { from: change.from, to: change.to };
  if (change.message) payload.message = change.message;
  if (change.detail) payload.detail = change.detail;
  const events: StatusChangeEvent[] = [{ type: "status_changed", payload }];
  if (toolsAvailable(change.from) !== toolsAvailable(change.to))
    events.push({ type: "catalogue_changed", payload: { reason: `status ${change.to}` } });
  return events;
}
