"use client";

import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import { toCsv } from "@switchboard/core/csv";
import { ResponsiveTable } from "~/components/ui/responsive-table";
import { useUrlState } from "~/components/ui/use-url-state";
import { useTRPC } from "~/trpc/react";
import { formatBytes, formatCount } from "./format";
import { groupUsage, USAGE_GROUPS, type UsageGroup, type UsageLine } from "./usage-groups";

const DAY_CHOICES = ["7", "30", "90"] as const;

const CSV_COLUMNS = [
  { header: "day", value: (r: UsageLine) => r.day },
  { header: "member", value: (r: UsageLine) => r.member },
  { header: "server", value: (r: UsageLine) => r.server },
  { header: "tool", value: (r: UsageLine) => r.target },
  { header: "method", value: (r: UsageLine) => r.method },
  { header: "calls", value: (r: UsageLine) => r.calls },
  { header: "errors", value: (r: UsageLine) => r.errors },
  { header: "result_bytes", value: (r: UsageLine) => r.resultBytes },
  { header: "result_tokens", value: (r: UsageLine) => r.resultTokens },
];

/** Saves the lines on screen as a CSV file (built in the browser from the same rows). */
function downloadCsv(lines: UsageLine[], days: string) {
  const blob = new Blob([toCsv(CSV_COLUMNS, lines)], { type: "text/csv;charset=utf-8" });
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = `usage-last-${days}-days.csv`;
  document.body.append(a);
  a.click();
  a.remove();
  URL.revokeObjectURL(url);
}

/** Calls, errors and the size of what tools returned, per member, server and tool, by UTC day. */
export function UsageSection({ teamId, isAdmin }: { teamId: string; isAdmin: boolean }) {
  const trpc = useTRPC();
  const id = useId();
  const [get, set] = useUrlState({ days: "7", by: "detail" });
  const days = (DAY_CHOICES as readonly string[]).includes(get("days")) ? get("days") : "7";
  const by = (USAGE_GROUPS.some((g) => g.id === get("by")) ? get("by") : "detail") as UsageGroup;
  const q = useQuery({ ...trpc.activity.usage.queryOptions({ teamId, days: Number(days) }), staleTime: 30_000 });
  const lines = q.data ? groupUsage(q.data.rows, by) : undefined;
  return (
    <section className="card stack" aria-labelledby={`${id}-usage`}>
      <h2 id={`${id}-usage`}>{isAdmin ? "Usage per member" : "Your usage"}</h2>
      <p className="muted" style={{ margin: 0 }}>
        By UTC day. Bytes are the size of the JSON results tools returned; tokens are the same estimate as the
        catalogue&apos;s tool costs.
      </p>
      <div className="row toolbar">
        <label className="inline-label">
          Days
          <select value={days} onChange={(e) => set({ days: e.target.value })}>
            {DAY_CHOICES.map((d) => (
              <option key={d} value={d}>
                last {d} days
              </option>
            ))}
          </select>
        </label>
        <label className="inline-label">
          Per
          <select value={by} onChange={(e) => set({ by: e.target.value })}>
            {USAGE_GROUPS.filter((g) => isAdmin || g.id !== "member").map((g) => (
              <option key={g.id} value={g.id}>
                {g.label}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className="secondary"
          disabled={!lines?.length}
          onClick={() => lines && downloadCsv(lines, days)}
        >
          Download CSV
        </button>
      </div>
      <ResponsiveTable
        label="Usage by day"
        columns={["Day", "Member", "Server", "Tool", "Calls", "Errors", "Bytes", "Tokens"]}
        query={q}
        rows={lines}
        errorPrefix="Could not load usage: "
        empty="No calls in these days yet."
        scrollsSideways
        row={(r) => (
          <tr key={`${r.day}/${r.userId}/${r.installationId}/${r.method}/${r.target}`} data-testid="usage-row">
            <th scope="row">{r.day}</th>
            <td data-label="Member">{r.member}</td>
            <td data-label="Server">{r.server}</td>
            <td data-label="Tool">{r.target}</td>
            <td data-label="Calls">{formatCount(r.calls)}</td>
            <td data-label="Errors">{formatCount(r.errors)}</td>
            <td data-label="Bytes">{formatBytes(r.resultBytes)}</td>
            <td data-label="Tokens">{formatCount(r.resultTokens)}</td>
          </tr>
        )}
      />
    </section>
  );
}
