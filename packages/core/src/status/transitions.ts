import { FAILURE_STATUSES as FAILURES } from "./groups";
import { INSTANCE_STATUSES, type InstanceStatus } from "./statuses";

/**
 * Legal status transitions, as data. A self-transition is never listed: writing the same status again is a
 * no-op the caller should skip, not a transition.
 *
 * Every state except `awaiting_user_config` itself may go to `awaiting_user_config`: that happens whenever a
 * required user-tier field becomes missing (a new required field on the template, the member clears a value).
 * It is appended below rather than repeated in each row.
 */
const BASE: Record<InstanceStatus, readonly InstanceStatus[]> = {
  // Left only when the member fills every required user field.
  awaiting_user_config: ["provisioning"],
  // provisioning -> error: the launch could not even be dispatched (e.g. the template no longer resolves).
  provisioning: ["command_received", "error"],
  command_received: ["connecting", "restarting", ...FAILURES],
  // connecting -> permanently_failed: a stdio process that keeps dying during start-up hits the crash limit.
  connecting: ["discovering_tools", "restarting", "permanently_failed", ...FAILURES],
  // discovering_tools -> online: restarts and recoveries re-discover into an already synced catalogue, so the
  // references skip syncing_tools on those paths.
  discovering_tools: ["syncing_tools", "online", "restarting", "permanently_failed", ...FAILURES],
  syncing_tools: ["online", "restarting", "permanently_failed", ...FAILURES],
  online: [
    "restarting", // config changed
    "connecting", // stdio crash with auto-restart, or a forced reconnect
    "discovering_tools", // a discovery in place (no path takes it today: tools/list_changed is not acted on)
    "permanently_failed", // a stdio crash that is the last one allowed in the window
    ...FAILURES,
  ],
  // A restart either reconnects with the new config or fails like any connection attempt.
  restarting: ["connecting", "permanently_failed", ...FAILURES],
  // offline/error -> connecting is recovery (a call got through, a health check answered, or the backoff loop
  // reconnected). They may also change kind (a call let through answers 401 -> requires_reauth).
  offline: ["connecting", "restarting", "error", "requires_reauth", "permanently_failed"],
  error: ["connecting", "restarting", "offline", "requires_reauth", "permanently_failed"],
  // requires_reauth -> connecting: the OAuth callback succeeded. restarting: the config changed meanwhile.
  requires_reauth: ["connecting", "restarting"],
  // Left only by an explicit restart: provisioning (re-dispatch the launch) or connecting (restart in place).
  permanently_failed: ["provisioning", "connecting"],
};

export const TRANSITIONS: Readonly<Record<InstanceStatus, readonly InstanceStatus[]>> = Object.freeze(
  Object.fromEntries(
    INSTANCE_STATUSES.map((from) => {
      const targets: InstanceStatus[] =
        from === "awaiting_user_config" ? [...BASE[from]] : [...BASE[from], "awaiting_user_config"];
      return [from, Object.freeze(targets)];
    }),
  ) as Record<InstanceStatus, readonly InstanceStatus[]>,
);

export function canTransition(from: InstanceStatus, to: InstanceStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export class IllegalTransitionError extends Error {
  override readonly name = "IllegalTransitionError";
  constructor(
    readonly from: InstanceStatus,
    readonly to: InstanceStatus,
  ) {
    super(`Illegal instance status transition: ${from} -> ${to}`);
  }
}

export function assertTransition(from: InstanceStatus, to: InstanceStatus): void {
  if (!canTransition(from, to)) throw new IllegalTransitionError(from, to);
}
