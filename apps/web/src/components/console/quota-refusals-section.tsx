"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { useId } from "react";
import { ResponsiveTable } from "~/components/ui/responsive-table";
import { useTRPC } from "~/trpc/react";
import { LoadMore } from "~/components/ui/load-more";

/**
 * Who hits the limits: recent calls a quota refused (the request log's blocked rows), newest first, for one
 * installation or the whole team, 25 at a time.
 */
export function QuotaRefusalsSection({ teamId, installationId }: { teamId: string; installationId: string | null }) {
  const trpc = useTRPC();
  const headingId = useId();
  const query = useInfiniteQuery({
    ...trpc.governance.quotaRefusals.infiniteQueryOptions(
      { teamId, limit: 25, ...(installationId ? { installationId } : {}) },
      { getNextPageParam: (last) => last.nextCursor },
    ),
    staleTime: 10_000,
  });
  const rows = query.data?.pages.flatMap((p) => p.items);
  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId}>Refused by a quota</h2>
      <p className="muted">Recent tool calls a limit refused, as the request log recorded them.</p>
      <ResponsiveTable
        label="Calls refused by a quota"
        columns={["Who", "When", "Server", "Tool", "Limit"]}
        query={query}
        rows={rows}
        empty="No call has been refused by a quota."
        errorPrefix="Could not load the refusals: "
        row={(r) => (
          <tr key={r.id}>
            <th scope="row">{r.who}</th>
            <td data-label="When">
              <time dateTime={r.at}>{new Date(r.at).toLocaleString()}</time>
            </td>
            <td data-label="Server">{r.installationName}</td>
            <td data-label="Tool">{r.tool}</td>
            <td data-label="Limit">{r.message}</td>
          </tr>
        )}
      />
      <LoadMore query={query} wrap />
    </section>
  );
}
