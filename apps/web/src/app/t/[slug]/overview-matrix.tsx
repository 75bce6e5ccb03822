"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { INSTANCE_STATUSES, STATUS_LABELS, type InstanceStatus } from "@switchboard/core/status";
import { InstanceCell } from "~/components/console/instance-cell";
import { InstanceActions } from "~/components/console/instance-actions";
import { LiveIndicator, useLiveUpdates } from "~/components/console/use-live-updates";
import { errorMessage } from "~/lib/errors";
import { useTRPC } from "~/trpc/react";

/** Members x installed servers, each cell the member's instance, updated live from the worker's events. */
export function OverviewMatrix({ teamId, teamName, slug, isAdmin }: { teamId: string; teamName: string; slug: string; isAdmin: boolean }) {
  const trpc = useTRPC();
  const [status, setStatus] = useState<InstanceStatus | "">("");
  const live = useLiveUpdates(teamId);
  const matrix = useInfiniteQuery(
    trpc.instance.matrix.infiniteQueryOptions(
      { teamId, limit: 25, ...(status ? { statuses: [status] } : {}) },
      { getNextPageParam: (last) => last.nextCursor },
    ),
  );
  const installations = matrix.data?.pages[0]?.installations ?? [];
  const memberCount = matrix.data?.pages[0]?.memberCount;
  const rows = matrix.data?.pages.flatMap((p) => p.rows) ?? [];

  return (
    <div className="stack">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h1 style={{ margin: 0 }}>{teamName}</h1>
        <LiveIndicator status={live.status} />
      </div>
      <p className="muted">
        {isAdmin ? "Every member's instance of every installed server. " : "Your instances of the team's servers. "}
        Hover a status for its message.{" "}
        {!isAdmin && <Link href={`/t/${slug}/my-servers`}>Fill in your settings on My servers.</Link>}
      </p>
      <div className="row" style={{ justifyContent: "space-between" }}>
        <span className="muted">
          <span data-testid="member-count">{memberCount ?? "…"}</span> member{memberCount === 1 ? "" : "s"} ·{" "}
          {installations.length} installed server{installations.length === 1 ? "" : "s"} · <Link href={`/t/${slug}/members`}>Manage members</Link>
        </span>
        <label style={{ flexDirection: "row", alignItems: "center" }}>
          Show
          <select value={status} onChange={(e) => setStatus(e.target.value as InstanceStatus | "")} aria-label="Filter by status">
            <option value="">every status</option>
            {INSTANCE_STATUSES.map((s) => (
              <option key={s} value={s}>{STATUS_LABELS[s]}</option>
            ))}
          </select>
        </label>
      </div>
      {matrix.isPending ? (
        <div className="card stack" aria-busy="true"><div className="skeleton" /><div className="skeleton" /><div className="skeleton" /></div>
      ) : matrix.isError ? (
        <p className="error card" role="alert">Could not load the overview: {errorMessage(matrix.error)}</p>
      ) : installations.length === 0 ? (
        <div className="card empty">
          No servers installed yet.{" "}
          {isAdmin ? <Link href={`/t/${slug}/servers`}>Install one from the catalogue.</Link> : "Ask an admin to install one."}
        </div>
      ) : (
        <div className="card matrix">
          <table aria-label="Instance status by member and server">
            <thead>
              <tr>
                <th scope="col">Member</th>
                {installations.map((i) => (
                  <th key={i.id} scope="col">
                    <Link href={`/t/${slug}/installations/${i.id}`}>{i.name}</Link>
                    <div className="muted small" style={{ textTransform: "none" }}>{i.slug}</div>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.membershipId}>
                  <th scope="row" style={{ textTransform: "none", color: "var(--text)", fontSize: ".9rem" }}>
                    {r.user.name}
                    <div className="muted small">{r.user.email}</div>
                  </th>
                  {installations.map((i) => {
                    const cell = r.cells[i.id];
                    return (
                      <td key={i.id} data-testid={`cell-${i.slug}-${r.user.email}`}>
                        {cell ? (
                          <div className="stack" style={{ gap: ".35rem" }}>
                            <Link className="cell-link" href={`/t/${slug}/installations/${i.id}?instance=${cell.id}`} aria-label={`${i.name} for ${r.user.name}`}>
                              <InstanceCell cell={cell} />
                            </Link>
                            <InstanceActions teamId={teamId} instanceId={cell.id} status={cell.status} label={`${i.name} for ${r.user.name}`} canRestart={isAdmin} />
                          </div>
                        ) : (
                          <span className="muted">—</span>
                        )}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
          {rows.length === 0 && <div className="empty">No members match.</div>}
        </div>
      )}
      {matrix.hasNextPage && (
        <button type="button" className="secondary" onClick={() => matrix.fetchNextPage()} disabled={matrix.isFetchingNextPage}>
          {matrix.isFetchingNextPage ? "Loading…" : "More members"}
        </button>
      )}
    </div>
  );
}
