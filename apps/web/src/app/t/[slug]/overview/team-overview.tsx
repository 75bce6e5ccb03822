"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { INSTANCE_STATUSES, statusLabelFor } from "@switchboard/core/status";
import { LiveIndicator, useLiveUpdates } from "~/components/console/use-live-updates";
import { Tabs, tabPanelProps } from "~/components/ui/tabs";
import { useUrlState } from "~/components/ui/use-url-state";
import { useTRPC } from "~/trpc/react";
import { MyInstancesList, OverviewMatrix } from "../overview-matrix";
import { OverviewSummary } from "./summary";
import { MembersTable, ServersTable } from "./tables";
import { QueryState, Skeletons } from "~/components/ui/query-state";

const VIEWS = [
  { id: "servers", label: "By server" },
  { id: "members", label: "By member" },
  { id: "matrix", label: "Matrix" },
] as const;
type View = (typeof VIEWS)[number]["id"];

/**
 * The team at a glance: a summary first (instances by status, who has to act), then for admins the servers,
 * the members or the full matrix, each searchable and sortable; a member gets a list of their own instances.
 * View, status filter, search, sort and page live in the URL.
 */
export function TeamOverview({
  teamId,
  teamName,
  slug,
  isAdmin,
  viewerId,
}: {
  teamId: string;
  teamName: string;
  slug: string;
  isAdmin: boolean;
  viewerId: string;
}) {
  const trpc = useTRPC();
  const live = useLiveUpdates(teamId);
  const overview = useQuery(trpc.instance.overview.queryOptions({ teamId }));
  const [get, set] = useUrlState({ view: "servers", status: "", q: "", sort: "name", page: "1" });
  const view = (VIEWS.some((v) => v.id === get("view")) ? get("view") : "servers") as View;
  const status = (INSTANCE_STATUSES as readonly string[]).includes(get("status")) ? get("status") : "";
  const page = Number.parseInt(get("page"), 10) || 1;
  // The search box keeps its own text while typing; the URL follows a moment later. The box takes the URL's
  // search only when someone else wrote it (a member's "Show instances", Back): when our own debounced write
  // lands, the person may have typed on, and those keystrokes stay.
  const [q, setQ] = useState(get("q"));
  const urlQ = get("q");
  const writtenQ = useRef(urlQ);
  useEffect(() => {
    if (urlQ === writtenQ.current) return;
    writtenQ.current = urlQ;
    setQ(urlQ);
  }, [urlQ]);
  useEffect(() => {
    if (q === urlQ) return;
    const timer = setTimeout(() => {
      writtenQ.current = q;
      set({ q, page: "1" });
    }, 250);
    return () => clearTimeout(timer);
  }, [q, urlQ, set]);

  return (
    <div className="stack">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h1 style={{ margin: 0 }}>{teamName}</h1>
        <LiveIndicator status={live.status} />
      </div>
      {overview.data && (
        <p className="muted" style={{ margin: 0 }}>
          <span data-testid="member-count">{overview.data.memberCount}</span> member
          {overview.data.memberCount === 1 ? "" : "s"} · {overview.data.servers.length} installed server
          {overview.data.servers.length === 1 ? "" : "s"} · {overview.data.instanceCount.toLocaleString()}{" "}
          {isAdmin ? "" : "of your "}instance{overview.data.instanceCount === 1 ? "" : "s"} ·{" "}
          <Link href={`/t/${slug}/members`}>{isAdmin ? "Manage members" : "See who is in the team"}</Link>
        </p>
      )}
      <QueryState
        query={overview}
        loading={<Skeletons rows={3} className="card stack" />}
        errorPrefix="Could not load the overview: "
        errorClassName="error card"
        isEmpty={(data) => data.servers.length === 0}
        empty={
          <div className="card empty">
            No servers installed yet.{" "}
            {isAdmin ? (
              <Link href={`/t/${slug}/servers`}>Install one from the catalogue.</Link>
            ) : (
              "Ask an admin to install one."
            )}
          </div>
        }
      >
        {(data) => (
          <>
            <OverviewSummary
              teamId={teamId}
              slug={slug}
              data={data}
              status={status}
              onStatus={(s) => set({ status: s, page: "1" })}
            />
            {!isAdmin ? (
              <MyInstancesList teamId={teamId} slug={slug} status={status} />
            ) : (
              <section className="stack" aria-label="Instances">
                <Tabs
                  label="Overview views"
                  idBase="overview"
                  tabs={VIEWS}
                  value={view}
                  onChange={(v) => set({ view: v, page: "1", sort: "name" })}
                />
                <div className="row toolbar">
                  <label className="inline-label">
                    <span>Search</span>
                    <input
                      type="search"
                      value={q}
                      onChange={(e) => setQ(e.target.value)}
                      placeholder={view === "servers" ? "Server name" : "Name or email"}
                      aria-label={view === "servers" ? "Search servers" : "Search members"}
                    />
                  </label>
                  {view !== "matrix" && (
                    <label className="inline-label">
                      <span>Sort by</span>
                      <select value={get("sort")} onChange={(e) => set({ sort: e.target.value, page: "1" })}>
                        <option value="name">Name</option>
                        <option value="problems">Most problems first</option>
                        {view === "members" && <option value="joined">Joined first</option>}
                      </select>
                    </label>
                  )}
                  <label className="inline-label">
                    <span>Show</span>
                    <select
                      value={status}
                      onChange={(e) => set({ status: e.target.value, page: "1" })}
                      aria-label="Filter by status"
                    >
                      <option value="">every status</option>
                      {INSTANCE_STATUSES.map((s) => (
                        <option key={s} value={s}>
                          {statusLabelFor(s, { own: false })}
                        </option>
                      ))}
                    </select>
                  </label>
                </div>
                <div {...tabPanelProps("overview", view)} className="card">
                  {view === "servers" && (
                    <ServersTable
                      slug={slug}
                      data={data}
                      q={urlQ}
                      status={status}
                      sort={get("sort")}
                      page={page}
                      onPage={(p) => set({ page: String(p) })}
                    />
                  )}
                  {view === "members" && (
                    <MembersTable
                      data={data}
                      q={urlQ}
                      status={status}
                      sort={get("sort")}
                      page={page}
                      onPage={(p) => set({ page: String(p) })}
                      onOpen={(email) => set({ view: "matrix", q: email, page: "1" })}
                    />
                  )}
                  {view === "matrix" && (
                    <OverviewMatrix teamId={teamId} slug={slug} viewerId={viewerId} status={status} search={urlQ} />
                  )}
                </div>
              </section>
            )}
          </>
        )}
      </QueryState>
    </div>
  );
}
