"use client";

import { useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useEffect, useRef, useState } from "react";
import { useUrlState } from "~/components/ui/use-url-state";
import { ErrorText } from "~/components/console/error-text";
import { LiveIndicator } from "~/components/console/use-live-updates";
import { errorMessage } from "~/lib/errors";
import { useTRPC } from "~/trpc/react";
import { When } from "~/components/when";

type Outcome = "success" | "tool_error" | "error" | "blocked";
const OUTCOME_TONE: Record<Outcome, string> = {
  success: "ok",
  tool_error: "warning",
  error: "danger",
  blocked: "warning",
};

/**
 * Calls through the gateway: admins see every member's, a member their own. With `installationId`, one
 * server's; without, the whole team's, with server and member filters. Filters live in the URL. New calls
 * arrive live (the gateway announces what it wrote); while the live stream is down, the list polls slowly.
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
  const [get, set] = useUrlState({ outcome: "", target: "", server: "", member: "", request: "" });
  const outcome = (["success", "tool_error", "error", "blocked"].includes(get("outcome")) ? get("outcome") : "") as
    Outcome | "";
  const [target, setTarget] = useState(get("target"));
  useEffect(() => {
    if (target === get("target")) return;
    const timer = setTimeout(() => set({ target }), 250);
    return () => clearTimeout(timer);
  }, [target, get, set]);
  const setOutcome = (o: Outcome | "") => set({ outcome: o });
  const server = installationId ?? (servers?.some((x) => x.id === get("server")) ? get("server") : "");
  const member = isAdmin && members?.some((x) => x.id === get("member")) ? get("member") : "";
  // The open request's details are in the URL too: a link shows the same call.
  const selected = get("request") || null;
  const setSelected = (id: string | null) => set({ request: id ?? "" });
  const live = useRequestLogLive(teamId, server);
  useEffect(() => onLiveStatus?.(live.status), [onLiveStatus, live.status]);
  const log = useInfiniteQuery(
    trpc.ops.teamRequestLog.infiniteQueryOptions(
      {
        teamId,
        limit: 25,
        ...(server ? { installationId: server } : {}),
        ...(member ? { userId: member } : {}),
        ...(outcome ? { outcome } : {}),
        ...(get("target") ? { target: get("target") } : {}),
      },
      {
        getNextPageParam: (l) => l.nextCursor,
        staleTime: 2_000,
        // Live: the announcements refetch. The poll is only the fallback while the stream reconnects.
        refetchInterval: live.status === "pending" ? false : FALLBACK_POLL_MS,
      },
    ),
  );
  const rows = log.data?.pages.flatMap((p) => p.items) ?? [];
  const filtered = Boolean(outcome || get("target") || (!installationId && server) || member);
  return (
    <div className="stack">
      <div className="card row" role="search" aria-label="Filter the request log">
        {!installationId && servers && (
          <label style={{ flexDirection: "row", alignItems: "center" }}>
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
          <label style={{ flexDirection: "row", alignItems: "center" }}>
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
        <label style={{ flexDirection: "row", alignItems: "center" }}>
          Outcome
          <select value={outcome} onChange={(e) => setOutcome(e.target.value as Outcome | "")}>
            <option value="">any</option>
            <option value="success">success</option>
            <option value="tool_error">tool error</option>
            <option value="error">error</option>
            <option value="blocked">blocked</option>
          </select>
        </label>
        <label style={{ flexDirection: "row", alignItems: "center" }}>
          Tool or URI
          <input value={target} onChange={(e) => setTarget(e.target.value)} placeholder="contains…" />
        </label>
        {!onLiveStatus && <LiveIndicator status={live.status} />}
        <span className="muted small" role="status">
          {log.isFetching ? "Updating…" : ""}
        </span>
        {!isAdmin && <span className="muted small">Showing your own requests.</span>}
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
        <div className="card table-scroll">
          <table className="responsive">
            <thead>
              <tr>
                <th>When</th>
                {!installationId && <th>Server</th>}
                <th>Member</th>
                <th>Method</th>
                <th>Target</th>
                <th>Outcome</th>
                <th style={{ textAlign: "right" }}>ms</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id} data-testid="request-row">
                  <td data-label="When" className="small">
                    <When date={r.createdAt} />
                  </td>
                  {!installationId && (
                    <td data-label="Server" className="small">
                      {r.installation.name}
                    </td>
                  )}
                  <td data-label="Member" className="small">
                    {r.user.name}
                    {r.token?.kind === "oauth" && (
                      <span className="muted" data-testid="request-client">
                        {" "}
                        via {r.token.name}
                      </span>
                    )}
                  </td>
                  <td data-label="Method">
                    <code className="small">{r.method}</code>
                  </td>
                  <td data-label="Target">
                    <code className="tool-name">{r.target}</code>
                  </td>
                  <td data-label="Outcome">
                    <span className={`badge ${OUTCOME_TONE[r.outcome]}`}>{r.outcome.replace("_", " ")}</span>
                  </td>
                  <td data-label="ms" style={{ textAlign: "right" }}>
                    {r.durationMs}
                  </td>
                  <td data-label="">
                    <button
                      type="button"
                      className="secondary small"
                      aria-expanded={selected === r.id}
                      onClick={() => setSelected(selected === r.id ? null : r.id)}
                    >
                      Details
                    </button>
                  </td>
                </tr>
              ))}
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
      {selected && <RequestDetail teamId={teamId} callId={selected} onClose={() => setSelected(null)} />}
    </div>
  );
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
    <section className="card stack" aria-label="Request details" data-testid="request-detail">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h2 style={{ margin: 0 }}>Request details</h2>
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
          <div className="row small">
            <code>{entry.data.method}</code> <code>{entry.data.target}</code> · {entry.data.outcome} ·{" "}
            {entry.data.durationMs} ms · {entry.data.attempts} attempt(s) · {entry.data.resultBytes} bytes · by{" "}
            {entry.data.user.name}
            {entry.data.token?.kind === "oauth" ? ` via ${entry.data.token.name}` : ""}
          </div>
          {entry.data.errorMessage && (
            <p className="error">
              <ErrorText message={entry.data.errorMessage} testId="request-error" />
            </p>
          )}
          <h3 className="small">Arguments (secrets redacted)</h3>
          <pre className="block">{JSON.stringify(entry.data.arguments ?? {}, null, 2)}</pre>
          <h3 className="small">Result</h3>
          <pre className="block">{entry.data.resultSummary ?? "—"}</pre>
        </>
      )}
    </section>
  );
}
