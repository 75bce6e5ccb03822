import { addLatency, emptyHistogram, latencyPercentile, mergeHistograms, type LatencyHistogram } from "./latency";

/** What the activity roll-ups count of each call: any outcome but `success` is an error (tool errors included). */
export function isErrorOutcome(outcome: string): boolean {
  return outcome !== "success";
}

/** One request-log row as the roll-up reads it. */
export interface LoggedCall {
  teamId: string;
  installationId: string;
  userId: string;
  method: string;
  target: string;
  outcome: string;
  durationMs: number;
  resultBytes: number;
  resultTokens: number;
  /** Start of the bucket the call falls in (minute or day), ISO 8601. */
  bucket: string;
}

/** One roll-up row: the calls of one team, server, member and tool (method + target) within one bucket. */
export interface ActivityBucket {
  teamId: string;
  bucket: string;
  installationId: string;
  userId: string;
  method: string;
  target: string;
  calls: number;
  errors: number;
  resultBytes: number;
  resultTokens: number;
  latency: LatencyHistogram;
}

/** Groups calls into roll-up rows; the same calls always give the same rows (the roll-up overwrites, never adds). */
export function rollUpCalls(calls: Iterable<LoggedCall>): ActivityBucket[] {
  const rows = new Map<string, ActivityBucket>();
  for (const c of calls) {
    const key = JSON.stringify([c.teamId, c.bucket, c.installationId, c.userId, c.method, c.target]);
    let row = rows.get(key);
    if (!row) {
      row = {
        teamId: c.teamId,
        bucket: c.bucket,
        installationId: c.installationId,
        userId: c.userId,
        method: c.method,
        target: c.target,
        calls: 0,
        errors: 0,
        resultBytes: 0,
        resultTokens: 0,
        latency: emptyHistogram(),
      };
      rows.set(key, row);
    }
    row.calls += 1;
    if (isErrorOutcome(c.outcome)) row.errors += 1;
    row.resultBytes += c.resultBytes;
    row.resultTokens += c.resultTokens;
    addLatency(row.latency, c.durationMs);
  }
  return [...rows.values()];
}

/** The activity dashboard's time ranges: how far back, and the width of each point on its charts. */
export const ACTIVITY_RANGES = {
  hour: { spanMs: 60 * 60_000, stepMs: 60_000, source: "minute" },
  day: { spanMs: 24 * 60 * 60_000, stepMs: 60 * 60_000, source: "minute" },
  week: { spanMs: 7 * 24 * 60 * 60_000, stepMs: 24 * 60 * 60_000, source: "day" },
} as const;
export type ActivityRange = keyof typeof ACTIVITY_RANGES;

/**
 * How the worker keeps the roll-ups: every `everyMs` it reads the request-log rows written since its watermark
 * (less `overlapMs`, for writes that committed late) and recomputes the buckets they fall in. Minute rows are kept
 * `minuteKeepMs` (the day view reads them), day rows for the request log's retention.
 */
export const ACTIVITY_ROLLUP = {
  everyMs: 60_000,
  overlapMs: 60_000,
  minuteKeepMs: 8 * 24 * 60 * 60_000,
  schedulerId: "maintenance-activity-rollup",
} as const;

/** What the dashboard shows of any set of roll-up rows. */
export interface ActivitySummary {
  calls: number;
  errors: number;
  /** errors / calls, 0 without calls. */
  errorRate: number;
  /** Upper bounds of the slots holding the 50th and 95th percentile (`latencyPercentile`); null without calls. */
  p50Ms: number | null;
  p95Ms: number | null;
  resultBytes: number;
  resultTokens: number;
}

type Summable = Pick<ActivityBucket, "calls" | "errors" | "resultBytes" | "resultTokens" | "latency">;

export function summarizeActivity(rows: Iterable<Summable>): ActivitySummary {
  let calls = 0;
  let errors = 0;
  let resultBytes = 0;
  let resultTokens = 0;
  const histograms: Array<readonly number[]> = [];
  for (const r of rows) {
    calls += r.calls;
    errors += r.errors;
    resultBytes += r.resultBytes;
    resultTokens += r.resultTokens;
    histograms.push(r.latency);
  }
  const latency = mergeHistograms(histograms);
  return {
    calls,
    errors,
    errorRate: calls === 0 ? 0 : errors / calls,
    p50Ms: latencyPercentile(latency, 50),
    p95Ms: latencyPercentile(latency, 95),
    resultBytes,
    resultTokens,
  };
}

/** Groups rows by `key` and summarizes each group, largest first by calls. */
export function summarizeBy<R extends Summable>(
  rows: Iterable<R>,
  key: (row: R) => string,
): Array<{ key: string; first: R; summary: ActivitySummary }> {
  const groups = new Map<string, R[]>();
  for (const r of rows) {
    const k = key(r);
    const group = groups.get(k);
    if (group) group.push(r);
    else groups.set(k, [r]);
  }
  return [...groups.entries()]
    .map(([k, group]) => ({ key: k, first: group[0]!, summary: summarizeActivity(group) }))
    .sort((a, b) => b.summary.calls - a.summary.calls || a.key.localeCompare(b.key));
}
