/**
 * The latency sketch of the activity roll-ups: a fixed histogram. Each roll-up row stores how many calls took at
 * most each bound (the last slot counts everything slower than the last bound); histograms of any rows merge by
 * adding slot by slot, and a percentile is read from the merged counts. Fixed bounds make the merge exact (the
 * counts of a day are the sum of its minutes'), at the price of a percentile known only to its bucket: the
 * answer is the bucket's upper bound, so a p95 of "250 ms" means "95 % of calls took 250 ms or less".
 */
export const LATENCY_BOUNDS_MS = [5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000] as const;

/** What a percentile in the last slot (slower than every bound) answers: a finite stand-in that charts can draw. */
export const LATENCY_OVERFLOW_MS = 2 * LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1]!;

/** Slots in a stored histogram: one per bound plus one for slower calls. */
export const LATENCY_SLOTS = LATENCY_BOUNDS_MS.length + 1;

export type LatencyHistogram = number[];

export function emptyHistogram(): LatencyHistogram {
  return new Array<number>(LATENCY_SLOTS).fill(0);
}

/** The slot a call of `ms` milliseconds is counted in: the first bound it does not exceed. */
export function latencySlot(ms: number): number {
  const i = LATENCY_BOUNDS_MS.findIndex((bound) => ms <= bound);
  return i === -1 ? LATENCY_BOUNDS_MS.length : i;
}

/** Counts one call into `histogram` (in place) and returns it. */
export function addLatency(histogram: LatencyHistogram, ms: number): LatencyHistogram {
  histogram[latencySlot(ms)]! += 1;
  return histogram;
}

/** Slot-by-slot sum; a shorter or missing array counts as zeros (a row written with fewer slots stays usable). */
export function mergeHistograms(histograms: Iterable<readonly number[] | null | undefined>): LatencyHistogram {
  const merged = emptyHistogram();
  for (const h of histograms) {
    if (!h) continue;
    for (let i = 0; i < Math.min(h.length, LATENCY_SLOTS); i++) merged[i]! += h[i] ?? 0;
  }
  return merged;
}

/**
 * The `p`-th percentile (0 < p <= 100) of the calls a histogram counts, as the upper bound of the slot that holds
 * it (nearest-rank: the smallest bound with at least p % of the calls at or below it). A percentile slower than the
 * last bound answers LATENCY_OVERFLOW_MS, shown as "over 60 s" (`formatLatency`); no calls answer null.
 */
export function latencyPercentile(histogram: readonly number[], p: number): number | null {
  const total = histogram.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * total));
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i] ?? 0;
    if (seen >= rank) return i < LATENCY_BOUNDS_MS.length ? LATENCY_BOUNDS_MS[i]! : LATENCY_OVERFLOW_MS;
  }
  return LATENCY_OVERFLOW_MS;
}

/** A percentile as people read it: "≤ 250 ms", "≤ 2.5 s", "over 60 s", or "–" without calls. */
export function formatLatency(ms: number | null): string {
  if (ms === null) return "–";
  const last = LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1]!;
  if (ms > last) return `over ${last / 1000} s`;
  return ms < 1000 ? `≤ ${ms} ms` : `≤ ${ms / 1000} s`;
}
