import { humanizeError } from "@switchboard/core/errors";
export interface TimelineEvent {
  id: string;
  type: string;
  payload: Record<string, unknown>;
  createdAt: Date;
  requestedByName?: string | null;
}

export type TimelineEntry =
  | { kind: "event"; event: TimelineEvent }
  | {
      kind: "retries";
      id: string;
      first: number;
      last: number;
      count: number;
      lastError: string | undefined;
      newest: Date;
      oldest: Date;
    };

/**
 * A timeline (newest first) with each run of consecutive failed reconnect attempts that share their error read
 * as one line ("attempts 3–9 failed: connection refused"): a server that stays down for an hour should not push
 * everything else off the page.
 */
export function collapseRetries(events: readonly TimelineEvent[]): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  let run: TimelineEvent[] = [];
  const flush = () => {
    if (run.length === 1) out.push({ kind: "event", event: run[0]! });
    else if (run.length > 1) {
      const attempts = run.map((e) => Number(e.payload.attempt ?? 0));
      out.push({
        kind: "retries",
        id: run[0]!.id,
        first: Math.min(...attempts),
        last: Math.max(...attempts),
        count: run.length,
        lastError: run[0]!.payload.lastError as string | undefined,
        newest: run[0]!.createdAt,
        oldest: run.at(-1)!.createdAt,
      });
    }
    run = [];
  };
  for (const e of events) {
    const joins =
      e.type === "server_reconnecting" && run.length > 0 && run[0]!.payload.lastError === e.payload.lastError;
    if (!joins) flush();
    if (e.type === "server_reconnecting") run.push(e);
    else out.push({ kind: "event", event: e });
  }
  flush();
  return out;
}

/**
 * "Attempts 3–9 failed: Nothing answers at this address (connection refused): …" (the error only where the reader
 * may see it, as the one readable sentence of core's `humanizeError`: raw text such as a web page's never widens
 * the timeline).
 */
export function describeRetries(entry: Extract<TimelineEntry, { kind: "retries" }>): string {
  const span = entry.first === entry.last ? `${entry.count} attempts` : `Attempts ${entry.first}–${entry.last}`;
  return `${span} failed${entry.lastError ? `: ${humanizeError(entry.lastError).summary}` : ""}`;
}
