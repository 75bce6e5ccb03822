"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorText } from "~/components/console/error-text";
import { errorMessage } from "~/lib/errors";
import { useTRPC } from "~/trpc/react";

type Outcome = "success" | "tool_error" | "error" | "blocked";
const OUTCOME_TONE: Record<Outcome, string> = { success: "ok", tool_error: "warning", error: "danger", blocked: "warning" };

/** Calls through the gateway to this server: admins see every member's, a member their own. */
export function RequestLogTab({ teamId, installationId, isAdmin }: { teamId: string; installationId: string; isAdmin: boolean }) {
  const trpc = useTRPC();
  const [outcome, setOutcome] = useState<Outcome | "">("");
  const [target, setTarget] = useState("");
  const [selected, setSelected] = useState<string | null>(null);
  const log = useInfiniteQuery(
    trpc.ops.requestLog.infiniteQueryOptions(
      { teamId, installationId, limit: 25, ...(outcome ? { outcome } : {}), ...(target ? { target } : {}) },
      { getNextPageParam: (l) => l.nextCursor, staleTime: 2_000 },
    ),
  );
  const rows = log.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <div className="stack">
      <div className="card row" role="search" aria-label="Filter the request log">
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
        <button type="button" className="secondary" onClick={() => log.refetch()}>Refresh</button>
        {!isAdmin && <span className="muted small">Showing your own requests.</span>}
      </div>
      {log.isPending ? (
        <div className="card stack" aria-busy="true"><div className="skeleton" /><div className="skeleton" /></div>
      ) : log.isError ? (
        <p className="error card" role="alert">Could not load the request log: {errorMessage(log.error)}</p>
      ) : rows.length === 0 ? (
        <div className="card empty">No requests yet{outcome || target ? " matching these filters" : ""}.</div>
      ) : (
        <div className="card">
          <table>
            <thead><tr><th>When</th><th>Member</th><th>Method</th><th>Target</th><th>Outcome</th><th style={{ textAlign: "right" }}>ms</th><th /></tr></thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id} data-testid="request-row">
                  <td className="small">{r.createdAt.toLocaleTimeString()}</td>
                  <td className="small">
                    {r.user.name}
                    {r.token?.kind === "oauth" && <span className="muted" data-testid="request-client"> via {r.token.name}</span>}
                  </td>
                  <td><code className="small">{r.method}</code></td>
                  <td><code>{r.target}</code></td>
                  <td><span className={`badge ${OUTCOME_TONE[r.outcome]}`}>{r.outcome.replace("_", " ")}</span></td>
                  <td style={{ textAlign: "right" }}>{r.durationMs}</td>
                  <td><button type="button" className="secondary small" aria-expanded={selected === r.id} onClick={() => setSelected(selected === r.id ? null : r.id)}>Details</button></td>
                </tr>
              ))}
            </tbody>
          </table>
          {log.hasNextPage && (
            <button type="button" className="secondary" onClick={() => log.fetchNextPage()} disabled={log.isFetchingNextPage}>Older requests</button>
          )}
        </div>
      )}
      {selected && <RequestDetail teamId={teamId} callId={selected} onClose={() => setSelected(null)} />}
    </div>
  );
}

function RequestDetail({ teamId, callId, onClose }: { teamId: string; callId: string; onClose: () => void }) {
  const trpc = useTRPC();
  const entry = useQuery(trpc.ops.requestLogEntry.queryOptions({ teamId, callId }));
  return (
    <section className="card stack" aria-label="Request details" data-testid="request-detail">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h2 style={{ margin: 0 }}>Request details</h2>
        <button type="button" className="secondary small" onClick={onClose}>Close</button>
      </div>
      {entry.isPending ? (
        <div className="skeleton" />
      ) : entry.isError ? (
        <p className="error" role="alert">{errorMessage(entry.error)}</p>
      ) : (
        <>
          <div className="row small">
            <code>{entry.data.method}</code> <code>{entry.data.target}</code> · {entry.data.outcome} · {entry.data.durationMs} ms · {entry.data.attempts} attempt(s) · {entry.data.resultBytes} bytes · by {entry.data.user.name}{entry.data.token?.kind === "oauth" ? ` via ${entry.data.token.name}` : ""}
          </div>
          {entry.data.errorMessage && <p className="error"><ErrorText message={entry.data.errorMessage} testId="request-error" /></p>}
          <h3 className="small">Arguments (secrets redacted)</h3>
          <pre className="block">{JSON.stringify(entry.data.arguments ?? {}, null, 2)}</pre>
          <h3 className="small">Result</h3>
          <pre className="block">{entry.data.resultSummary ?? "—"}</pre>
        </>
      )}
    </section>
  );
}
