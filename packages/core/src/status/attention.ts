import type { InstanceStatus } from "./statuses";
import { STATUS_LABELS } from "./labels";

/**
 * Statuses where someone has to act (or at least look): the console's overview lists these first, with who
 * and what. `offline` and `error` retry by themselves but are failing now; the other three wait for a person.
 */
export const ATTENTION_STATUSES = [
  "permanently_failed",
  "error",
  "requires_reauth",
  "offline",
  "awaiting_user_config",
] as const satisfies readonly InstanceStatus[];

const ATTENTION_SET: ReadonlySet<string> = new Set(ATTENTION_STATUSES);

export function needsAttention(status: string): boolean {
  return ATTENTION_SET.has(status);
}

/** Most urgent first: stopped, then failing, then waiting for a person. */
export function attentionRank(status: InstanceStatus): number {
  const i = (ATTENTION_STATUSES as readonly string[]).indexOf(status);
  return i === -1 ? ATTENTION_STATUSES.length : i;
}

/** What the attention order reads of an item: its status and stable names, never a time that changes. */
export interface AttentionKey {
  status: InstanceStatus;
  instanceId: string;
  installation: { name: string };
  user: { name: string };
}

/**
 * The order of "needs attention": most urgent status first, then server and member name (the id breaks ties).
 * Never by when the status last changed: a reconnect that fails again rewrites that time, and a list ordered by
 * it would reshuffle under the reader's pointer at every attempt.
 */
export function compareAttention(a: AttentionKey, b: AttentionKey): number {
  return (
    attentionRank(a.status) - attentionRank(b.status) ||
    a.installation.name.localeCompare(b.installation.name) ||
    a.user.name.localeCompare(b.user.name) ||
    (a.instanceId < b.instanceId ? -1 : a.instanceId > b.instanceId ? 1 : 0)
  );
}

/**
 * The status label as the viewer should read it: "Needs your settings" speaks to the instance's owner, so
 * anyone else (an admin looking at a member's cell) reads whose settings are missing instead.
 */
export function statusLabelFor(status: InstanceStatus, { own }: { own: boolean }): string {
  if (status === "awaiting_user_config" && !own) return "Waiting for the member's settings";
  if (status === "requires_reauth" && !own) return "Member must sign in again";
  return STATUS_LABELS[status];
}

/**
 * Who has to do what about an instance, in one sentence, for the person reading it. `own`: the viewer owns the
 * instance; `admin`: the viewer is a team owner or admin; `member`: the owner's display name.
 */
export function nextStep(
  status: InstanceStatus,
  { own, admin, member }: { own: boolean; admin: boolean; member: string },
): string | null {
  switch (status) {
    case "awaiting_user_config":
      return own ? "Fill in your settings on My servers." : `${member} has to fill in their settings.`;
    case "requires_reauth":
      return own ? "Connect your account again on My servers." : `${member} has to connect their account again.`;
    case "permanently_failed":
      return admin ? "Look at the crash output, then Restart." : "An admin has to restart it.";
    case "error":
      return admin
        ? "Retrying by itself; check the server's settings or Reconnect to try now."
        : "Retrying by itself; Reconnect tries now.";
    case "offline":
      return "Retrying by itself; Reconnect tries now.";
    default:
      return null;
  }
}
