import { holdsConnection } from "../status/groups";
import type { InstanceStatus } from "../status/statuses";

export type CallFailureDecision = { apply: true } | { apply: false; why: "no_connection" | "stale" | "not_online" };

/**
 * Whether a reported failure takes the instance down (`instance.call-failed`). Only a failure of the connection
 * that is current may: a call that started before the instance's last status change (a reconnect, a restart, the
 * failure another report already applied) failed on a connection that is gone, and applying it would drop the
 * new one, restart the server and fail the calls in flight again — a loop under load. A dated report (`startedAt`:
 * the route's calls, the gateway's sweep) also applies only to an `online` instance: anywhere else a worker is
 * already connecting or retrying, and its own attempt is the evidence. An undated report is the worker's own
 * about the current connection and applies in any status that holds one.
 */
export function callFailureApplies(input: {
  status: InstanceStatus;
  /** When the instance last changed status (null: never since it was created). */
  statusChangedAt: Date | null;
  startedAt?: Date;
}): CallFailureDecision {
  if (!holdsConnection(input.status)) return { apply: false, why: "no_connection" };
  if (!input.startedAt) return { apply: true };
  if (input.statusChangedAt && input.startedAt.getTime() < input.statusChangedAt.getTime())
    return { apply: false, why: "stale" };
  if (input.status !== "online") return { apply: false, why: "not_online" };
  return { apply: true };
}
