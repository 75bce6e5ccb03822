"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import type { ApprovalState } from "@switchboard/core/governance";
import { useTRPC } from "~/trpc/react";

/** How often the approvals pages ask again while visible (TanStack pauses the interval in a hidden tab). */
export const APPROVALS_POLL_MS = 5_000;

export const APPROVAL_STATE_LABELS: Record<ApprovalState, { label: string; tone: string }> = {
  pending: { label: "waiting", tone: "warning" },
  approved: { label: "approved", tone: "ok" },
  denied: { label: "denied", tone: "danger" },
  used: { label: "approved, used", tone: "" },
  expired: { label: "expired", tone: "" },
};

export function ApprovalStateBadge({ state }: { state: ApprovalState }) {
  const s = APPROVAL_STATE_LABELS[state];
  return (
    <span className={`badge ${s.tone}`} data-testid="approval-state" data-state={state}>
      {s.label}
    </span>
  );
}

/**
 * Approvals arrive as they are made: any live event of the team (the gateway announces `approval_requested`)
 * refetches the approvals queries at once; polling (APPROVALS_POLL_MS) covers members whose live stream carries
 * only their own events, such as named approvers who are not admins.
 */
export function useApprovalsLive(teamId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => void queryClient.invalidateQueries(trpc.approvals.pathFilter());
  return useSubscription(trpc.ops.live.subscriptionOptions({ teamId }, { onData: refresh }));
}

export function personLabel(p: { name: string; email: string }): string {
  return p.name ? `${p.name} (${p.email})` : p.email;
}

/** "in 4 min", "3 h ago": a short distance from now, for lists. */
export function relativeTime(at: Date, now: number): string {
  const ms = at.getTime() - now;
  const abs = Math.abs(ms);
  const text =
    abs < 60_000
      ? `${Math.max(1, Math.round(abs / 1000))} s`
      : abs < 3_600_000
        ? `${Math.round(abs / 60_000)} min`
        : abs < 86_400_000
          ? `${Math.round(abs / 3_600_000)} h`
          : `${Math.round(abs / 86_400_000)} d`;
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}
