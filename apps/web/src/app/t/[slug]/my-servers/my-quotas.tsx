"use client";

import { useQuery } from "@tanstack/react-query";
import { ResponsiveTable } from "~/components/ui/responsive-table";
import type { RouterOutputs } from "~/trpc/types";
import { useTRPC } from "~/trpc/react";

type MyQuota = RouterOutputs["governance"]["myQuotas"][number];

/** Who a count is kept for, from the member's side. */
function whose(q: MyQuota): string {
  const where = q.installationName ? ` on ${q.installationName}` : " on every server";
  switch (q.subject) {
    case "member":
      return `You${q.toolName ? `, ${q.toolName}` : ""}${where}`;
    case "token":
      return `Your token ${q.tokenName ?? ""}${where}`;
    case "installation":
      return `${q.installationName ?? "The server"}, all members together`;
    case "tool":
      return `${q.toolName ?? "The tool"} on ${q.installationName ?? "the server"}, all members together`;
  }
}

/**
 * The member's remaining quota: for each limit that applies to them (docs/quotas.md), the calls used in the
 * current window of the limit and when the window ends. Absent when the team has no limit.
 */
export function MyQuotas({ teamId }: { teamId: string }) {
  const trpc = useTRPC();
  const query = useQuery({
    ...trpc.governance.myQuotas.queryOptions({ teamId }),
    staleTime: 5_000,
    refetchInterval: 15_000,
  });
  if (query.isSuccess && query.data.length === 0) return null;
  return (
    <section className="card stack" aria-labelledby="my-quotas-h">
      <h2 id="my-quotas-h">Your quotas</h2>
      <p className="muted">A tool call past a limit is refused until its window resets.</p>
      <ResponsiveTable
        label="Your quotas"
        columns={["Limit", "Counts", "Used", "Resets"]}
        query={query}
        rows={query.data}
        empty="No limit applies to you."
        errorPrefix="Could not load your quotas: "
        row={(q) => (
          <tr key={`${q.quotaId}:${q.counts}:${q.installationId}:${q.tokenName}`}>
            <th scope="row">
              {whose(q)}, per {q.window}
            </th>
            <td data-label="Counts">{q.counts === "writes" ? "Tools that are not read-only" : "All tool calls"}</td>
            <td data-label="Used">
              {q.used} of {q.limit} used
            </td>
            <td data-label="Resets">
              {q.resetAt ? (
                <time dateTime={q.resetAt}>{new Date(q.resetAt).toLocaleTimeString()}</time>
              ) : (
                "No call counted yet"
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}
