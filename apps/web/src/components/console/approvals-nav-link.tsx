"use client";

import { useQuery } from "@tanstack/react-query";
import { NavLink } from "~/components/nav-link";
import { useTRPC } from "~/trpc/react";
import { APPROVALS_POLL_MS } from "./approval-parts";

/** The navigation's Approvals link, with the number of held calls waiting for this member's decision. */
export function ApprovalsNavLink({ teamId, href }: { teamId: string; href: string }) {
  const trpc = useTRPC();
  const waiting = useQuery({
    ...trpc.approvals.waitingCount.queryOptions({ teamId }),
    refetchInterval: APPROVALS_POLL_MS * 6,
    staleTime: APPROVALS_POLL_MS,
  });
  const count = waiting.data?.count ?? 0;
  return (
    <NavLink href={href}>
      Approvals
      {count > 0 && (
        <span className="badge warning" style={{ marginLeft: 6 }} data-testid="approvals-waiting">
          {count}
          <span className="sr-only"> waiting for you</span>
        </span>
      )}
    </NavLink>
  );
}
