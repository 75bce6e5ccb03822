"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ResponsiveTable } from "~/components/ui/responsive-table";
import { Tabs, tabPanelProps } from "~/components/ui/tabs";
import { useUrlState } from "~/components/ui/use-url-state";
import { useTRPC } from "~/trpc/react";
import { CallsChart, LatencyChart, TopToolsChart } from "./activity-charts";
import { formatCount, formatLatency, formatPerMinute, formatRate } from "./format";
import { UsageSection } from "./usage-section";
import { QueryState } from "~/components/ui/query-state";

const RANGES = [
  { id: "hour", label: "Last hour", unit: "minute" },
  { id: "day", label: "Last day", unit: "hour" },
  { id: "week", label: "Last week", unit: "day" },
] as const;
type Range = (typeof RANGES)[number]["id"];
const TABS_ID = "activity-range";

interface Summary {
  calls: number;
  errors: number;
  errorRate: number;
  p50Ms: number | null;
  p95Ms: number | null;
  perMinute: number;
}

const SUMMARY_COLUMNS = ["Calls", "Per minute", "Error rate", "p50", "p95"] as const;

function SummaryCells({ s }: { s: Summary }) {
  return (
    <>
      <td data-label="Calls">{formatCount(s.calls)}</td>
      <td data-label="Per minute">{formatPerMinute(s.perMinute)}</td>
      <td data-label="Error rate">{formatRate(s.errorRate)}</td>
      <td data-label="p50">{formatLatency(s.p50Ms)}</td>
      <td data-label="p95">{formatLatency(s.p95Ms)}</td>
    </>
  );
}

/** Requests, errors and latency from the worker's roll-ups; admins see the team, members their own calls. */
export function ActivityView({ teamId, teamSlug, isAdmin }: { teamId: string; teamSlug: string; isAdmin: boolean }) {
  const trpc = useTRPC();
  const [get, set] = useUrlState({ range: "hour" });
  const range = (RANGES.some((r) => r.id === get("range")) ? get("range") : "hour") as Range;
  const unit = RANGES.find((r) => r.id === range)!.unit;
  const q = useQuery({
    ...trpc.activity.dashboard.queryOptions({ teamId, range }),
    staleTime: 15_000,
    refetchInterval: 60_000,
  });
  return (
    <div className="stack">
      <h1 style={{ margin: 0 }}>Activity</h1>
      <p className="muted" style={{ margin: 0 }}>
        {isAdmin ? "Calls through the gateway by every member of the team." : "Your calls through the gateway."} Updated
        by the worker every minute; see <Link href={`/t/${teamSlug}/requests`}>Requests</Link> for single calls.
      </p>
      <Tabs
        label="Time range"
        idBase={TABS_ID}
        tabs={RANGES.map((r) => ({ id: r.id, label: r.label }))}
        value={range}
        onChange={(id) => set({ range: id })}
      />
      <div {...tabPanelProps(TABS_ID, range)} className="stack">
        <QueryState
          query={q}
          loading={<div className="skeleton" aria-busy="true" style={{ height: 240 }} />}
          errorPrefix="Could not load the activity: "
          isEmpty={(d) => d.total.calls === 0}
          empty={
            <p className="empty card" data-testid="activity-empty">
              No calls in this range yet. Calls made through the gateway appear here within about a minute.
            </p>
          }
        >
          {(d) => (
            <>
              <dl className="card activity-totals" data-testid="activity-totals">
                <div>
                  <dt>Calls</dt>
                  <dd>{formatCount(d.total.calls)}</dd>
                </div>
                <div>
                  <dt>Per minute</dt>
                  <dd>{formatPerMinute(d.total.perMinute)}</dd>
                </div>
                <div>
                  <dt>Error rate</dt>
                  <dd>{formatRate(d.total.errorRate)}</dd>
                </div>
                <div>
                  <dt>p50</dt>
                  <dd>{formatLatency(d.total.p50Ms)}</dd>
                </div>
                <div>
                  <dt>p95</dt>
                  <dd>{formatLatency(d.total.p95Ms)}</dd>
                </div>
              </dl>
              <div className="chart-grid">
                <CallsChart series={d.series} stepMs={d.stepMs} unit={unit} />
                <LatencyChart series={d.series} stepMs={d.stepMs} />
                <TopToolsChart tools={d.topTools} />
              </div>
              <section className="card stack" aria-labelledby="by-server">
                <h2 id="by-server">By server</h2>
                <ResponsiveTable
                  label="Activity by server"
                  columns={["Server", ...SUMMARY_COLUMNS]}
                  query={q}
                  rows={d.servers}
                  empty="No calls."
                  row={(s) => (
                    <tr key={s.installationId}>
                      <th scope="row">
                        <Link href={`/t/${teamSlug}/installations/${s.installationId}`}>{s.name}</Link>
                      </th>
                      <SummaryCells s={s} />
                    </tr>
                  )}
                />
              </section>
              {isAdmin && (
                <section className="card stack" aria-labelledby="by-member">
                  <h2 id="by-member">By member</h2>
                  <ResponsiveTable
                    label="Activity by member"
                    columns={["Member", ...SUMMARY_COLUMNS]}
                    query={q}
                    rows={d.members}
                    empty="No calls."
                    row={(m) => (
                      <tr key={m.userId}>
                        <th scope="row">{m.name}</th>
                        <SummaryCells s={m} />
                      </tr>
                    )}
                  />
                </section>
              )}
              <section className="card stack" aria-labelledby="by-tool">
                <h2 id="by-tool">By tool</h2>
                <ResponsiveTable
                  label="Activity by tool"
                  columns={["Tool", "Server", ...SUMMARY_COLUMNS]}
                  query={q}
                  rows={d.tools}
                  empty="No calls."
                  row={(t) => (
                    <tr key={t.key} data-testid="tool-row">
                      <th scope="row">{t.target}</th>
                      <td data-label="Server">{t.server}</td>
                      <SummaryCells s={t} />
                    </tr>
                  )}
                />
              </section>
              <section className="card stack" aria-labelledby="slowest">
                <h2 id="slowest">Slowest tools</h2>
                <ResponsiveTable
                  label="Slowest tools by p95"
                  columns={["Tool", "Server", "p95", "p50", "Calls"]}
                  query={q}
                  rows={d.slowestTools}
                  empty="No calls."
                  row={(t) => (
                    <tr key={t.key}>
                      <th scope="row">{t.target}</th>
                      <td data-label="Server">{t.server}</td>
                      <td data-label="p95">{formatLatency(t.p95Ms)}</td>
                      <td data-label="p50">{formatLatency(t.p50Ms)}</td>
                      <td data-label="Calls">{formatCount(t.calls)}</td>
                    </tr>
                  )}
                />
              </section>
              <section className="card stack" aria-labelledby="failing">
                <h2 id="failing">Failing instances</h2>
                <ResponsiveTable
                  label="Instances with errors"
                  columns={["Server", "Member", "Errors", "Error rate", "Status now"]}
                  query={q}
                  rows={d.failing}
                  empty="No errors in this range."
                  row={(f) => (
                    <tr key={`${f.installationId}/${f.userId}`} data-testid="failing-row">
                      <th scope="row">
                        <Link href={`/t/${teamSlug}/installations/${f.installationId}`}>{f.server}</Link>
                      </th>
                      <td data-label="Member">{f.member}</td>
                      <td data-label="Errors">
                        {formatCount(f.errors)} of {formatCount(f.calls)}
                      </td>
                      <td data-label="Error rate">{formatRate(f.errorRate)}</td>
                      <td data-label="Status now">{f.status ?? "removed"}</td>
                    </tr>
                  )}
                />
              </section>
            </>
          )}
        </QueryState>
      </div>
      <UsageSection teamId={teamId} isAdmin={isAdmin} />
    </div>
  );
}
