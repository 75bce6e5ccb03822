import type { InstanceStatus } from "./statuses";

/**
 * Groups of statuses by what they mean, for every place that asks "which statuses ...?" (worker processors,
 * the proxy, the console). A new status is placed here once instead of in each caller's private list.
 */

function group<const S extends readonly InstanceStatus[]>(statuses: S) {
  const set: ReadonlySet<string> = new Set(statuses);
  return { statuses, has: (status: string): status is S[number] => set.has(status) };
}

/** The failures a live or starting connection can end in (classifyError decides which one). */
export const FAILURE_STATUSES = ["offline", "error", "requires_reauth"] as const satisfies readonly InstanceStatus[];

/**
 * The walk to online, in order (restarts and recoveries may enter it half-way): a discovery resumes from the
 * step it finds and never goes back.
 */
export const DISCOVERY_STEPS = [
  "provisioning",
  "command_received",
  "connecting",
  "discovering_tools",
  "syncing_tools",
] as const satisfies readonly InstanceStatus[];
const discoveryStep = group(DISCOVERY_STEPS);
/** Already on its way to online: a new trigger does not need to restart the walk. */
export const isDiscoveryStep = discoveryStep.has;

/** On its way to online, a restart included: a worker owns the next step (reconciliation re-queues them). */
export const IN_PROGRESS_STATUSES = [...DISCOVERY_STEPS, "restarting"] as const satisfies readonly InstanceStatus[];
export const isInProgress = group(IN_PROGRESS_STATUSES).has;

/** Down and retried by the reconnect loop with the backoff (the console shows the retry countdown). */
export const RETRYING_STATUSES = ["offline", "error"] as const satisfies readonly InstanceStatus[];
export const isRetrying = group(RETRYING_STATUSES).has;

/**
 * Connected or trying to connect: a failed call or a lost OAuth grant takes the connection down and writes the
 * failure. The others are stopped already or wait for the member or an admin.
 */
export const CONNECTION_STATUSES = [
  "online",
  "connecting",
  "discovering_tools",
  "syncing_tools",
  ...RETRYING_STATUSES,
] as const satisfies readonly InstanceStatus[];
export const holdsConnection = group(CONNECTION_STATUSES).has;

/** A discovery job may start from these; the others wait for their own trigger (fields, re-auth, restart). */
export const DISCOVERABLE_STATUSES = [
  ...IN_PROGRESS_STATUSES,
  "online",
  ...RETRYING_STATUSES,
] as const satisfies readonly InstanceStatus[];
export const isDiscoverable = group(DISCOVERABLE_STATUSES).has;

/**
 * Running, or trying to run, with the configuration it was launched with: a configuration change restarts it.
 * Not provisioning (it launches with the new configuration anyway), awaiting_user_config (nothing launched) or
 * permanently_failed (only an explicit restart leaves it).
 */
export const LAUNCHED_STATUSES = [
  ...CONNECTION_STATUSES,
  "requires_reauth",
  "command_received",
  "restarting",
] as const satisfies readonly InstanceStatus[];
export const isLaunched = group(LAUNCHED_STATUSES).has;

/**
 * Statuses a member's "Reconnect now" acts on (the console's button, the ops service and the worker's
 * force-reconnect alike). `permanently_failed` is not one: a server stopped after repeated crashes is started
 * again only by an admin's restart, which clears its crash history.
 */
export const RECONNECTABLE_STATUSES = ["online", ...RETRYING_STATUSES] as const satisfies readonly InstanceStatus[];
export const isReconnectable = group(RECONNECTABLE_STATUSES).has;

/** Only the member can unblock these (re-authenticate, fill in their settings): the proxy points them to the page. */
export const MEMBER_ACTION_STATUSES = [
  "requires_reauth",
  "awaiting_user_config",
] as const satisfies readonly InstanceStatus[];
export const needsMemberAction = group(MEMBER_ACTION_STATUSES).has;

/**
 * Fresh OAuth tokens leave these as they are (the worker's oauth-authorized job skips them): the member's settings
 * are still missing, only an admin's restart leaves permanently_failed, and a restart is already under way.
 */
export const OAUTH_AUTHORIZED_SKIPS = [
  "awaiting_user_config",
  "permanently_failed",
  "restarting",
] as const satisfies readonly InstanceStatus[];
export const skipsOAuthAuthorized = group(OAUTH_AUTHORIZED_SKIPS).has;
