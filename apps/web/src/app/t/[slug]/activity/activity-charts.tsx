"use client";

import { useSyncExternalStore } from "react";
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { formatLatency } from "./format";

export interface SeriesPoint {
  at: Date;
  calls: number;
  errors: number;
  p50Ms: number | null;
  p95Ms: number | null;
}

const HEIGHT = 220;
const noSubscription = () => () => undefined;
const plural = (n: number, word: string) => `${n.toLocaleString("en")} ${word}${n === 1 ? "" : "s"}`;

function timeLabel(stepMs: number) {
  return (t: number) => {
    const d = new Date(t);
    if (stepMs >= 24 * 60 * 60_000)
      return d.toLocaleDateString("en", { month: "short", day: "numeric", timeZone: "UTC" });
    return d.toLocaleTimeString("en", { hour: "2-digit", minute: "2-digit", hour12: false });
  };
}

/**
 * A chart in a figure whose caption says in words what it shows (screen readers get the numbers from the
 * tables below; the chart's own keyboard layer moves its tooltip with the arrow keys).
 */
function ChartFigure({ title, caption, children }: { title: string; caption: string; children: React.ReactNode }) {
  // Drawn in the browser only: its sizes and time labels (the viewer's time zone) are the browser's to know, so
  // the server's HTML holds the caption and an empty box of the same height (no hydration mismatch).
  const inBrowser = useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
  return (
    <figure className="card chart" aria-label={title}>
      <figcaption>
        <strong>{title}</strong> <span className="muted">{caption}</span>
      </figcaption>
      <div style={{ width: "100%", height: HEIGHT }}>{inBrowser ? children : null}</div>
    </figure>
  );
}

/** Calls and errors in each point of the range. */
export function CallsChart({ series, stepMs, unit }: { series: SeriesPoint[]; stepMs: number; unit: string }) {
  const data = series.map((p) => ({ t: p.at.getTime(), ok: p.calls - p.errors, errors: p.errors }));
  const total = series.reduce((sum, p) => sum + p.calls, 0);
  const errors = series.reduce((sum, p) => sum + p.errors, 0);
  return (
    <ChartFigure title={`Calls per ${unit}`} caption={`${plural(total, "call")}, ${plural(errors, "error")}`}>
      <ResponsiveContainer width="100%" height="100%" minWidth={0} initialDimension={{ width: 320, height: HEIGHT }}>
        <BarChart data={data} margin={{ top: 8, right: 8, left: -16, bottom: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="t" tickFormatter={timeLabel(stepMs)} minTickGap={24} fontSize={12} />
          <YAxis allowDecimals={false} fontSize={12} />
          <Tooltip labelFormatter={(t) => timeLabel(stepMs)(Number(t))} />
          <Legend />
          <Bar dataKey="ok" name="Succeeded" stackId="calls" fill="var(--accent)" isAnimationActive={false} />
          <Bar dataKey="errors" name="Errors" stackId="calls" fill="var(--danger)" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </ChartFigure>
  );
}

/** p50 and p95 latency in each point of the range (upper bounds of the histogram slots). */
export function LatencyChart({ series, stepMs }: { series: SeriesPoint[]; stepMs: number }) {
  const data = series.map((p) => ({ t: p.at.getTime(), p50: p.p50Ms, p95: p.p95Ms }));
  return (
    <ChartFigure title="Latency" caption="p50 and p95, in ms (at most)">
      <ResponsiveContainer width="100%" height="100%" minWidth={0} initialDimension={{ width: 320, height: HEIGHT }}>
        <LineChart data={data} margin={{ top: 8, right: 8, left: -8, bottom: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="t" tickFormatter={timeLabel(stepMs)} minTickGap={24} fontSize={12} />
          <YAxis scale="log" domain={[1, "auto"]} allowDataOverflow fontSize={12} />
          <Tooltip
            labelFormatter={(t) => timeLabel(stepMs)(Number(t))}
            formatter={(v) => formatLatency(typeof v === "number" ? v : null)}
          />
          <Legend />
          <Line dataKey="p50" name="p50" stroke="var(--accent)" dot={{ r: 3 }} connectNulls isAnimationActive={false} />
          <Line dataKey="p95" name="p95" stroke="var(--danger)" dot={{ r: 3 }} connectNulls isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </ChartFigure>
  );
}

/** The most-called tools of the range. */
export function TopToolsChart({
  tools,
}: {
  tools: Array<{ key: string; target: string; server: string; calls: number }>;
}) {
  const data = tools.map((t) => ({ name: t.target, server: t.server, calls: t.calls }));
  return (
    <ChartFigure title="Top tools" caption="by calls">
      <ResponsiveContainer width="100%" height="100%" minWidth={0} initialDimension={{ width: 320, height: HEIGHT }}>
        <BarChart data={data} layout="vertical" margin={{ top: 8, right: 16, left: 8, bottom: 0 }}>
          <CartesianGrid strokeDasharray="3 3" horizontal={false} />
          <XAxis type="number" allowDecimals={false} fontSize={12} />
          <YAxis type="category" dataKey="name" width={110} fontSize={12} />
          <Tooltip />
          <Bar dataKey="calls" name="Calls" fill="var(--accent)" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </ChartFigure>
  );
}
