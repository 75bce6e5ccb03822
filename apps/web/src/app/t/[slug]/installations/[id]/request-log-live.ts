"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useEffect, useRef } from "react";
import { useTRPC } from "~/trpc/react";

/** While the live stream is down, how often the log looks for new calls by itself. */
export const FALLBACK_POLL_MS = 15_000;

/**
 * Refetches the request logs on screen when the gateway announces new calls (for a member: their own) to
 * this server, or to any when `installationId` is empty; and once on every (re)connection, which may have
 * missed some. Announcements in a burst are coalesced into one refetch.
 */
export function useRequestLogLive(teamId: string, installationId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => clearTimeout(pending.current ?? undefined), []);
  const refresh = () => {
    if (pending.current) return;
    pending.current = setTimeout(() => {
      pending.current = null;
      void queryClient.invalidateQueries(trpc.ops.teamRequestLog.pathFilter());
    }, 150);
  };
  return useSubscription(
    trpc.ops.requestLogLive.subscriptionOptions(
      { teamId },
      {
        onStarted: refresh,
        onData: ({ data }) => {
          if (!installationId || data.installationIds.includes(installationId)) refresh();
        },
      },
    ),
  );
}
