"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { Fragment, useEffect, useRef, useState } from "react";
import { LogTable } from "~/components/console/log-table";
import { useUrlState } from "~/components/ui/use-url-state";
import { LiveIndicator } from "~/components/console/use-live-updates";
import { useTRPC } from "~/trpc/react";
import { When } from "~/components/when";
import {
  CALL_OUTCOMES,
  isCallOutcome,
  isRequestLogRange,
  REQUEST_LOG_RANGES,
  type CallOutcome,
  type RequestLogRange,
} from "~/lib/request-log";
import { CallName, OUTCOME_TONE, outcomeLabel } from "./request-call";
import { RequestDetail } from "./request-detail";
import { FALLBACK_POLL_MS, useRequestLogLive } from "./request-log-live";

/**
 * Calls through the gateway: admins see every member's, a member their own. With `installationId`, one
 * server's; without, the whole team's, with server and member filters. Filters live in the URL, with the open
 * call's details, which open in place of the row's place in the list and close when a filter hides the row. New
 * calls arrive live (the gateway announces what it wrote); while the live stream is down, the list polls slowly.
 */
export function RequestLogTab({
  teamId,
  installationId,
  isAdmin,
  servers,
  members,
  onLiveStatus,
}: {
  teamId: string;
  installationId?: string;
  isAdmin: boolean;
  servers?: ReadonlyArray<{ id: string; name: string }>;
  members?: ReadonlyArray<{ id: string; name: string }>;
  /**
   * Inside a page that shows its own live indicator (an installation's): the log's stream status goes there,
   * so the page shows one indicator for both streams instead of two.
   */
  onLiveStatus?: (status: string) => void;
}) {
  const trpc = useTRPC();
  const [get, set] = useUrlState({ outcome: "", target: "", server: "", member: "", range: "", request: "" });
  const outcome = isCallOutcome(get("outcome")) ? (get("outcome") as CallOutcome) : undefined;
  const range = isRequestLogRange(get("range")) ? (get("range") as RequestLogRange) : undefined;
  const [target, setTarget] = useState(get("target"));
  useEffect(() => {
    if (target === get("target")) return;
    const timer = setTimeout(() => set({ target }), 250);
    return () => clearTimeout(timer);
  }, [target, get, set]);
  const server = installationId ?? (servers?.some((x) => x.id === get("server")) ? get("server") : "");
  const member = isAdmin && members?.some((x) => x.id === get("member")) ? get("member") : "";
  // The open request's details are in the URL too: a link shows the same call.
  const selected = get("request") || null;
  const setSelected = (id: string | null) => set({ request: id ?? "" });
  const live = useRequestLogLive(teamId, server);
  useEffect(() => onLiveStatus?.(live.status), [onLiveStatus, live.status]);
  const filter = {
    ...(server ? { installationId: server } : {}),
    ...(member ? { userId: member } : {}),
    ...(outcome ? { outcome } : {}),
    ...(get("target") ? { target: get("target") } : {}),
    ...(range ? { range } : {}),
  };
  const log = useInfiniteQuery(
    trpc.ops.teamRequestLog.infiniteQueryOptions(
      { teamId, limit: 25, ...filter },
      {
        getNextPageParam: (l) => l.nextCursor,
        staleTime: 2_000,
        // Live: the announcements refetch. The poll is only the fallback while the stream reconnects.
        refetchInterval: live.status === "pending" ? false : FALLBACK_POLL_MS,
      },
    ),
  );
  const rows = log.data?.pages.flatMap((p) => p.items) ?? [];
  const total = log.data?.pages[0]?.total ?? 0;
  const filtered = Boolean(outcome || get("target") || (!installationId && server) || member || range);
  useClosedWhenFiltered(JSON.stringify(filter), log.isSuccess && !log.isFetching, selected, rows, setSelected);
  const exportHref = `/api/requests/export?${new URLSearchParams({ teamId, ...filter })}`;
  const columns = installationId ? 6 : 7;
  return (
    <div className="stack request-log">
      <div className="card row request-filters" role="search" aria-label="Filter the request log">
        {!installationId && servers && (
          <label>
            Server
            <select value={server} onChange={(e) => set({ server: e.target.value })}>
              <option value="">every server</option>
              {servers.map((x) => (
                <option key={x.id} value={x.id}>
                  {x.name}
                </option>
              ))}
            </select>
          </label>
        )}
        {isAdmin && members && (
          <label>
            Member
            <select value={member} onChange={(e) => set({ member: e.target.value })}>
              <option value="">everyone</option>
              {members.map((x) => (
                <option key={x.id} value={x.id}>
                  {x.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <label>
          Outcome
          <select value={outcome ?? ""} onChange={(e) => set({ outcome: e.target.value })}>
            <option value="">any</option>
            {CALL_OUTCOMES.map((o) => (
              <option key={o} value={o}>
                {outcomeLabel(o)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Time
          <select value={range ?? ""} onChange={(e) => set({ range: e.target.value })}>
            <option value="">any time</option>
            {REQUEST_LOG_RANGES.map((r) => (
              <option key={r.id} value={r.id}>
                {r.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Tool or URI
          <input value={target} onChange={(e) => setTarget(e.target.value)} placeholder="contains…" />
        </label>
      </div>
      <div className="row request-summary">
        <span role="status" data-testid="request-total">
          {log.isPending ? "Loading…" : log.isError ? "" : totalText(total, filtered)}
          {log.isFetching && !log.isPending ? " · updating…" : ""}
        </span>
        {!isAdmin && <span className="muted small">Showing your own requests.</span>}
        {!onLiveStatus && <LiveIndicator status={live.status} />}
        <a
          className="button secondary small request-export"
          href={exportHref}
          download
          aria-disabled={total === 0}
          onClick={(e) => total === 0 && e.preventDefault()}
        >
          Export CSV
        </a>
      </div>
      <LogTable
        query={log}
        errorPrefix="Could not load the request log: "
        empty={`No requests yet${filtered ? " matching these filters" : ""}.`}
        before={
          selected &&
          !rows.some((r) => r.id === selected) && (
            // A link to a call that is not among the loaded pages: its details above the list.
            <RequestDetail teamId={teamId} callId={selected} onClose={() => setSelected(null)} />
          )
        }
        table={{ className: "responsive request-table", "aria-label": "Requests" }}
        head={
          <>
            <th scope="col">When</th>
            {!installationId && <th scope="col">Server</th>}
            <th scope="col">Member</th>
            <th scope="col">Tool or URI</th>
            <th scope="col">Outcome</th>
            <th scope="col" className="num">
              ms
            </th>
            <th scope="col">
              <span className="sr-only">Details</span>
            </th>
          </>
        }
        rows={rows}
        olderLabel="Older requests"
        row={(r) => {
          const open = selected === r.id;
          return (
            <Fragment key={r.id}>
              <tr data-testid="request-row" className={open ? "selected" : undefined}>
                <td data-label="When" className="small nowrap">
                  <When date={r.createdAt} />
                </td>
                {!installationId && (
                  <td data-label="Server" className="small">
                    {r.installation.name}
                  </td>
                )}
                <td data-label="Member" className="small">
                  <span>
                    {r.user.name}
                    {r.token?.kind === "oauth" && (
                      <span className="muted" data-testid="request-client">
                        {" "}
                        via {r.token.name}
                      </span>
                    )}
                  </span>
                </td>
                <td data-label="Tool or URI">
                  <CallName method={r.method} requested={r.requested} target={r.target} />
                </td>
                <td data-label="Outcome">
                  <span className={`badge ${OUTCOME_TONE[r.outcome]}`}>{outcomeLabel(r.outcome)}</span>
                </td>
                <td data-label="ms" className="num">
                  {r.durationMs}
                </td>
                <td data-label="" className="nowrap">
                  <button
                    type="button"
                    className="secondary small"
                    aria-expanded={open}
                    aria-controls={open ? `request-detail-${r.id}` : undefined}
                    onClick={() => setSelected(open ? null : r.id)}
                  >
                    Details
                  </button>
                </td>
              </tr>
              {open && (
                <tr id={`request-detail-${r.id}`} className="request-detail-row">
                  <td colSpan={columns}>
                    <RequestDetail teamId={teamId} callId={r.id} onClose={() => setSelected(null)} />
                  </td>
                </tr>
              )}
            </Fragment>
          );
        }}
      />
    </div>
  );
}

/** "5 requests", or with filters "1 request matches these filters". */
function totalText(total: number, filtered: boolean): string {
  const n = `${total.toLocaleString("en")} request${total === 1 ? "" : "s"}`;
  return filtered ? `${n} ${total === 1 ? "matches" : "match"} these filters` : n;
}

/**
 * Closes the open call's details when a filter change leaves its row out of the list. Asked once per filter, when
 * that filter's list has loaded; not on the first load, where a link may name a call beyond the first page.
 */
function useClosedWhenFiltered(
  filterKey: string,
  settled: boolean,
  selected: string | null,
  rows: ReadonlyArray<{ id: string }>,
  close: (id: null) => void,
) {
  const checked = useRef<string | null>(null);
  useEffect(() => {
    if (!settled || checked.current === filterKey) return;
    const first = checked.current === null;
    checked.current = filterKey;
    if (!first && selected && !rows.some((r) => r.id === selected)) close(null);
  }, [filterKey, settled, selected, rows, close]);
}
