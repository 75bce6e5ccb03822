/**
 * The request log's time ranges: the page's filter, the list procedure and the CSV export read the same ids, and
 * each range ends now (the server computes its start when it answers, so a live refetch keeps sliding).
 */
export const REQUEST_LOG_RANGES = [
  { id: "15m", label: "Last 15 minutes", ms: 15 * 60_000 },
  { id: "1h", label: "Last hour", ms: 60 * 60_000 },
  { id: "24h", label: "Last 24 hours", ms: 24 * 60 * 60_000 },
  { id: "7d", label: "Last 7 days", ms: 7 * 24 * 60 * 60_000 },
  { id: "30d", label: "Last 30 days", ms: 30 * 24 * 60 * 60_000 },
] as const;

export type RequestLogRange = (typeof REQUEST_LOG_RANGES)[number]["id"];

export const REQUEST_LOG_RANGE_IDS = REQUEST_LOG_RANGES.map((r) => r.id) as [RequestLogRange, ...RequestLogRange[]];

export function isRequestLogRange(value: string): value is RequestLogRange {
  return REQUEST_LOG_RANGES.some((r) => r.id === value);
}

/** When a range starts, seen from `now`; undefined (any time) without one. */
export function rangeStart(range: RequestLogRange | undefined, now: number): Date | undefined {
  const r = REQUEST_LOG_RANGES.find((x) => x.id === range);
  return r ? new Date(now - r.ms) : undefined;
}

/** The call outcomes as the log's filter offers them. */
export const CALL_OUTCOMES = ["success", "tool_error", "error", "blocked"] as const;
export type CallOutcome = (typeof CALL_OUTCOMES)[number];

export function isCallOutcome(value: string): value is CallOutcome {
  return (CALL_OUTCOMES as readonly string[]).includes(value);
}
