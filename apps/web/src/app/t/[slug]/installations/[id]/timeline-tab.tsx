"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { describeEvent } from "~/components/console/describe-event";
import { collapseRetries, describeRetries } from "~/components/console/timeline-entries";
import { ErrorText } from "~/components/console/error-text";
import { useTRPC } from "~/trpc/react";
import { When } from "~/components/when";
import { FormError } from "~/components/ui/form-error";

/** The instance's events, newest first; new ones arrive live (the subscription refetches instance queries). */
export function TimelineTab({ teamId, instanceId }: { teamId: string; instanceId: string }) {
  const trpc = useTRPC();
  const events = useInfiniteQuery(
    trpc.instance.events.infiniteQueryOptions(
      { teamId, instanceId, limit: 50 },
      { getNextPageParam: (l) => l.nextCursor },
    ),
  );
  if (events.isPending)
    return (
      <div className="card stack" aria-busy="true">
        <div className="skeleton" />
        <div className="skeleton" />
      </div>
    );
  if (events.isError)
    return <FormError error={events.error} prefix="Could not load the timeline: " className="error card" />;
  const rows = events.data.pages.flatMap((p) => p.items);
  return (
    <div className="card stack">
      {rows.length === 0 ? (
        <div className="empty">Nothing has happened yet.</div>
      ) : (
        <ol className="timeline" aria-label="Events, newest first">
          {collapseRetries(rows).map((entry) => {
            if (entry.kind === "retries") {
              return (
                <li
                  key={entry.id}
                  data-testid="timeline-event"
                  data-type="server_reconnecting"
                  data-collapsed={entry.count}
                >
                  <When className="muted small" date={entry.newest} />
                  <span className="badge progress">reconnecting</span>
                  <span>{describeRetries(entry)}</span>
                  <span className="muted small">
                    {entry.count} attempts since <When date={entry.oldest} />
                  </span>
                </li>
              );
            }
            const e = entry.event;
            const d = describeEvent(e.type, e.payload, e.requestedByName);
            return (
              <li key={e.id} data-testid="timeline-event" data-type={e.type}>
                <When className="muted small" date={e.createdAt} />
                <span className={`badge ${d.tone}`}>{e.type.replaceAll("_", " ")}</span>
                <span>{d.title}</span>
                {(d.detail || d.raw) && (
                  <span className="muted small" style={{ minWidth: 0, maxWidth: "100%" }}>
                    <ErrorText message={d.detail ?? null} detail={d.raw} />
                  </span>
                )}
              </li>
            );
          })}
        </ol>
      )}
      {events.hasNextPage && (
        <button
          type="button"
          className="secondary"
          onClick={() => events.fetchNextPage()}
          disabled={events.isFetchingNextPage}
        >
          Older events
        </button>
      )}
    </div>
  );
}
