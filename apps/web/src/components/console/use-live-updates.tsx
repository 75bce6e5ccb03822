"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useRef } from "react";
import { useTRPC } from "~/trpc/react";

/**
 * Keeps the console's instance data fresh: every worker event for the team (a member: their own) refetches
 * the instance queries on screen. Refetches within a burst of events are coalesced into one.
 */
export function useLiveUpdates(teamId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);

  const refresh = () => {
    if (pending.current) return;
    pending.current = setTimeout(() => {
      pending.current = null;
      void queryClient.invalidateQueries(trpc.instance.pathFilter());
      void queryClient.invalidateQueries(trpc.installation.list.pathFilter());
      // A discovery may hold tools back for review, or change what a member may use.
      void queryClient.invalidateQueries(trpc.governance.pathFilter());
    }, 150);
  };

  return useSubscription(
    trpc.ops.live.subscriptionOptions(
      { teamId },
      {
        // A (re)connection may have missed events: catch up once.
        onStarted: refresh,
        onData: refresh,
      },
    ),
  );
}

export function LiveIndicator({ status }: { status: string }) {
  const live = status === "pending";
  return (
    <span
      className={`badge ${live ? "ok" : "warning"}`}
      data-testid="live-indicator"
      title={live ? "Updates arrive as they happen" : "Reconnecting to live updates"}
    >
      {live ? "● live" : "○ connecting"}
    </span>
  );
}
