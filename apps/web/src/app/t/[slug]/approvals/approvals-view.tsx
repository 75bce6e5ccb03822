"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import { approvalPath } from "@switchboard/core/governance";
import { ResponsiveTable } from "~/components/ui/responsive-table";
import {
  ApprovalStateBadge,
  APPROVALS_POLL_MS,
  personLabel,
  relativeTime,
  useApprovalsLive,
} from "~/components/console/approval-parts";
import { LiveIndicator } from "~/components/console/use-live-updates";
import { useNow } from "~/components/console/use-now";
import { useTRPC } from "~/trpc/react";
import { LoadMore } from "~/components/ui/load-more";

type HistoryFilter = "decided" | "approved" | "denied" | "used" | "expired";
const HISTORY_FILTERS: Array<[HistoryFilter, string]> = [
  ["decided", "All decided and expired"],
  ["approved", "Approved, not used yet"],
  ["used", "Approved and used"],
  ["denied", "Denied"],
  ["expired", "Expired"],
];

/**
 * Held tool calls: the ones waiting for a decision first (caller, server, tool, age, time left), then the
 * decided and expired ones with who decided and when. Admins see the team's; a member their own calls and those
 * they approve. Fresh through the live stream and a poll while the page is visible.
 */
export function ApprovalsView({ teamId, slug }: { teamId: string; slug: string }) {
  const live = useApprovalsLive(teamId);
  const now = useNow();
  return (
    <div className="stack">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h1 style={{ margin: 0 }}>Approvals</h1>
        <LiveIndicator status={live.status} />
      </div>
      <p className="muted">
        Calls to tools that need approval wait here. The caller retries the call once it is approved; it then runs once,
        with exactly the arguments shown.
      </p>
      <WaitingSection teamId={teamId} slug={slug} now={now} />
      <HistorySection teamId={teamId} slug={slug} now={now} />
    </div>
  );
}

function useApprovalList(teamId: string, state: "waiting" | HistoryFilter) {
  const trpc = useTRPC();
  return useInfiniteQuery({
    ...trpc.approvals.list.infiniteQueryOptions(
      { teamId, state, limit: 25 },
      { getNextPageParam: (last) => last.nextCursor },
    ),
    staleTime: 2_000,
    refetchInterval: APPROVALS_POLL_MS,
  });
}

function WaitingSection({ teamId, slug, now }: { teamId: string; slug: string; now: number | null }) {
  const headingId = useId();
  const query = useApprovalList(teamId, "waiting");
  const rows = query.data?.pages.flatMap((p) => p.items);
  return (
    <section className="card stack" aria-labelledby={headingId} data-testid="approvals-waiting-list">
      <h2 id={headingId}>Waiting for a decision</h2>
      <ResponsiveTable
        label="Calls waiting for a decision"
        columns={["Caller", "Server", "Tool", "Asked", "Expires"]}
        actions
        query={query}
        rows={rows}
        empty="No call is waiting for a decision."
        errorPrefix="Could not load the approvals: "
        row={(a) => (
          <tr key={a.id} data-testid="approval-row" data-approval={a.id}>
            <th scope="row">
              {personLabel(a.caller)}
              {a.mine && <span className="muted small"> (you)</span>}
            </th>
            <td data-label="Server">{a.installation.name}</td>
            <td data-label="Tool">
              <code>{a.tool}</code>
            </td>
            <td data-label="Asked">
              <time suppressHydrationWarning dateTime={a.createdAt.toISOString()} title={a.createdAt.toLocaleString()}>
                {now === null ? a.createdAt.toLocaleString() : relativeTime(a.createdAt, now)}
              </time>
            </td>
            <td data-label="Expires">
              <time suppressHydrationWarning dateTime={a.expiresAt.toISOString()} title={a.expiresAt.toLocaleString()}>
                {now === null ? a.expiresAt.toLocaleString() : relativeTime(a.expiresAt, now)}
              </time>
            </td>
            <td data-label="">
              <Link
                className="button small"
                href={approvalPath(slug, a.id)}
                aria-label={`Open the request of ${a.caller.name || a.caller.email} to call ${a.tool}`}
              >
                {a.mine ? "View" : "Review"}
              </Link>
            </td>
          </tr>
        )}
      />
      <LoadMore wrap query={query} />
    </section>
  );
}

function HistorySection({ teamId, slug, now }: { teamId: string; slug: string; now: number | null }) {
  const headingId = useId();
  const filterId = useId();
  const [filter, setFilter] = useState<HistoryFilter>("decided");
  const query = useApprovalList(teamId, filter);
  const rows = query.data?.pages.flatMap((p) => p.items);
  return (
    <section className="card stack" aria-labelledby={headingId} data-testid="approvals-history">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h2 id={headingId} style={{ margin: 0 }}>
          Decided and expired
        </h2>
        <label htmlFor={filterId} style={{ flexDirection: "row", alignItems: "center" }}>
          Show
          <select id={filterId} value={filter} onChange={(e) => setFilter(e.target.value as HistoryFilter)}>
            {HISTORY_FILTERS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ResponsiveTable
        label="Decided and expired calls"
        columns={["Caller", "Server", "Tool", "Outcome", "Decided by", "When"]}
        actions
        query={query}
        rows={rows}
        empty="Nothing here yet."
        errorPrefix="Could not load the approvals: "
        row={(a) => (
          <tr key={a.id} data-testid="approval-row" data-approval={a.id}>
            <th scope="row">
              {personLabel(a.caller)}
              {a.mine && <span className="muted small"> (you)</span>}
            </th>
            <td data-label="Server">{a.installation.name}</td>
            <td data-label="Tool">
              <code>{a.tool}</code>
            </td>
            <td data-label="Outcome">
              <ApprovalStateBadge state={a.status} />
              {a.comment && <div className="muted small">“{a.comment}”</div>}
            </td>
            <td data-label="Decided by">{a.decidedBy ? personLabel(a.decidedBy) : <span className="muted">—</span>}</td>
            <td data-label="When">
              {a.decidedAt ? (
                <time
                  suppressHydrationWarning
                  dateTime={a.decidedAt.toISOString()}
                  title={a.decidedAt.toLocaleString()}
                >
                  {now === null ? a.decidedAt.toLocaleString() : relativeTime(a.decidedAt, now)}
                </time>
              ) : (
                <span className="muted">never decided</span>
              )}
            </td>
            <td data-label="">
              <Link
                className="button secondary small"
                href={approvalPath(slug, a.id)}
                aria-label={`Open the request of ${a.caller.name || a.caller.email} to call ${a.tool}`}
              >
                Details
              </Link>
            </td>
          </tr>
        )}
      />
      <LoadMore wrap query={query} />
    </section>
  );
}
