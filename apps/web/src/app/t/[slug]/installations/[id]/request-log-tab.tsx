"use client";

import { describeGuardrailFinding } from "@switchboard/core/guardrails/rules";
import { useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { Fragment, useEffect, useRef, useState } from "react";
import { useUrlState } from "~/components/ui/use-url-state";
import { ErrorText } from "~/components/console/error-text";
import { LiveIndicator } from "~/components/console/use-live-updates";
import { errorMessage } from "~/lib/errors";
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

const OUTCOME_TONE: Record<CallOutcome, string> = {
  success: "ok",
  tool_error: "warning",
  error: "danger",
  blocked: "warning",
};

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
      {log.isPending ? (
        <div className="card stack" aria-busy="true">
          <div className="skeleton" />
          <div className="skeleton" />
        </div>
      ) : log.isError ? (
        <p className="error card" role="alert">
          Could not load the request log: {errorMessage(log.error)}
        </p>
      ) : rows.length === 0 ? (
        <div className="card empty">No requests yet{filtered ? " matching these filters" : ""}.</div>
      ) : (
        <div className="card">
          {selected && !rows.some((r) => r.id === selected) && (
            // A link to a call that is not among the loaded pages: its details above the list.
            <RequestDetail teamId={teamId} callId={selected} onClose={() => setSelected(null)} />
          )}
          <table className="responsive request-table" aria-label="Requests">
            <thead>
              <tr>
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
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => {
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
              })}
            </tbody>
          </table>
          {log.hasNextPage && (
            <button
              type="button"
              className="secondary"
              onClick={() => log.fetchNextPage()}
              disabled={log.isFetchingNextPage}
            >
              Older requests
            </button>
          )}
        </div>
      )}
    </div>
  );
}

const outcomeLabel = (o: CallOutcome) => o.replace("_", " ");

/** "5 requests", or with filters "1 request matches these filters". */
function totalText(total: number, filtered: boolean): string {
  const n = `${total.toLocaleString("en")} request${total === 1 ? "" : "s"}`;
  return filtered ? `${n} ${total === 1 ? "matches" : "match"} these filters` : n;
}

/** The name the client called, and the upstream's beneath it when the gateway renamed or prefixed it. */
function CallName({ method, requested, target }: { method: string; requested: string | null; target: string }) {
  const called = requested ?? target;
  return (
    <span className="cell-stack">
      <code className="tool-name">{called}</code>
      <span className="muted small">
        {method}
        {called !== target && (
          <>
            {" · upstream "}
            <code className="tool-name" data-testid="request-upstream-name">
              {target}
            </code>
          </>
        )}
      </span>
    </span>
  );
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

/** While the live stream is down, how often the log looks for new calls by itself. */
const FALLBACK_POLL_MS = 15_000;

/**
 * Refetches the request logs on screen when the gateway announces new calls (for a member: their own) to
 * this server, or to any when `installationId` is empty; and once on every (re)connection, which may have
 * missed some. Announcements in a burst are coalesced into one refetch.
 */
function useRequestLogLive(teamId: string, installationId: string) {
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

function RequestDetail({ teamId, callId, onClose }: { teamId: string; callId: string; onClose: () => void }) {
  const trpc = useTRPC();
  const entry = useQuery(trpc.ops.requestLogEntry.queryOptions({ teamId, callId }));
  return (
    <section className="stack request-detail" aria-label="Request details" data-testid="request-detail">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h2 className="request-detail-title">Request details</h2>
        <button type="button" className="secondary small" onClick={onClose}>
          Close
        </button>
      </div>
      {entry.isPending ? (
        <div className="skeleton" />
      ) : entry.isError ? (
        <p className="error" role="alert">
          {errorMessage(entry.error)}
        </p>
      ) : (
        <>
          <dl className="request-facts small">
            <dt>Called as</dt>
            <dd>
              <code className="tool-name">{entry.data.requested ?? entry.data.target}</code> ({entry.data.method})
            </dd>
            <dt>Upstream name</dt>
            <dd>
              <code className="tool-name">{entry.data.target}</code>
            </dd>
            <dt>Outcome</dt>
            <dd>
              {outcomeLabel(entry.data.outcome)} · {entry.data.durationMs} ms · {entry.data.attempts} attempt
              {entry.data.attempts === 1 ? "" : "s"} · {entry.data.resultBytes} bytes
            </dd>
            <dt>By</dt>
            <dd>
              {entry.data.user.name}
              {entry.data.token?.kind === "oauth" ? ` via ${entry.data.token.name}` : ""} ·{" "}
              <When date={entry.data.createdAt} />
            </dd>
            {entry.data.guardrailFindings.length > 0 && (
              <>
                <dt>Guardrails</dt>
                <dd>
                  <ul aria-label="Guardrail findings">
                    {entry.data.guardrailFindings.map((f) => (
                      <li key={`${f.where}${f.path}${f.category}${f.rule}`}>{describeGuardrailFinding(f)}</li>
                    ))}
                  </ul>
                </dd>
              </>
            )}
          </dl>
          {entry.data.errorMessage && (
            <p className="error">
              <ErrorText message={entry.data.errorMessage} testId="request-error" />
            </p>
          )}
          {/* Each block may scroll sideways (on a phone): focusable, so a keyboard can scroll it too. */}
          <h3 className="small">Arguments (secrets redacted)</h3>
          <pre className="block" tabIndex={0} aria-label="Arguments">
            {JSON.stringify(entry.data.arguments ?? {}, null, 2)}
          </pre>
          <h3 className="small">Result</h3>
          <pre className="block" tabIndex={0} aria-label="Result">
            {entry.data.resultSummary ?? "—"}
          </pre>
        </>
      )}
    </section>
  );
}
