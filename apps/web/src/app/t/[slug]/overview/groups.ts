import {
  IN_PROGRESS_STATUSES,
  MEMBER_ACTION_STATUSES,
  RETRYING_STATUSES,
  type InstanceStatus,
} from "@switchboard/core/status";

export type StatusCounts = Partial<Record<InstanceStatus, number>>;

/** The overview's columns: twelve statuses read as five things a person cares about. */
export const GROUPS = [
  { id: "online", label: "Online", statuses: ["online"] },
  { id: "starting", label: "Starting", statuses: IN_PROGRESS_STATUSES },
  { id: "waiting", label: "Waiting for a member", statuses: MEMBER_ACTION_STATUSES },
  { id: "failing", label: "Failing", statuses: RETRYING_STATUSES },
  { id: "stopped", label: "Stopped", statuses: ["permanently_failed"] },
] as const satisfies ReadonlyArray<{ id: string; label: string; statuses: readonly InstanceStatus[] }>;

export type GroupId = (typeof GROUPS)[number]["id"];

export function groupCount(counts: StatusCounts, group: (typeof GROUPS)[number]): number {
  return group.statuses.reduce((n, s) => n + (counts[s] ?? 0), 0);
}

export function total(counts: StatusCounts): number {
  return Object.values(counts).reduce((n, c) => n + (c ?? 0), 0);
}

/** Failing, stopped and waiting instances: what "most problems first" sorts by. */
export function problems(counts: StatusCounts): number {
  return GROUPS.filter((g) => g.id !== "online" && g.id !== "starting").reduce((n, g) => n + groupCount(counts, g), 0);
}

export function matchesStatus(counts: StatusCounts, status: string): boolean {
  return status === "" || (counts[status as InstanceStatus] ?? 0) > 0;
}
