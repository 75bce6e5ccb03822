"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";
import { RequestLogTab } from "../installations/[id]/request-log-tab";

/** Every call through the gateway to the team's servers, newest first, refreshing by itself. */
export function TeamRequests({ teamId, isAdmin }: { teamId: string; isAdmin: boolean }) {
  const trpc = useTRPC();
  const overview = useQuery(trpc.instance.overview.queryOptions({ teamId }));
  const servers = overview.data?.servers.map((s) => ({ id: s.id, name: s.name })) ?? [];
  const members = overview.data?.members.map((m) => ({ id: m.user.id, name: m.user.name })) ?? [];
  return (
    <div className="stack">
      <h1 style={{ margin: 0 }}>Requests</h1>
      <p className="muted" style={{ margin: 0 }}>
        {isAdmin
          ? "Every member's calls through the gateway, across the team's servers."
          : "Your calls through the gateway, across the team's servers."}
      </p>
      <RequestLogTab teamId={teamId} isAdmin={isAdmin} servers={servers} members={isAdmin ? members : undefined} />
    </div>
  );
}
