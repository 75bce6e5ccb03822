/** Latency percentiles and throughput from raw samples; printing helpers for the bench report. */
export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return Number.NaN;
  const idx = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return sortedMs[idx]!;
}

export interface LatencyStats {
  n: number;
  p50: number;
  p99: number;
  mean: number;
}

export function latencyStats(samplesMs: number[]): LatencyStats {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
  };
}

export const ms = (v: number) => `${v.toFixed(2)} ms`;
export const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ")).join("\n");
}

export const perSecond = (v: number) => v.toFixed(0);

/** A table row: a figure for the baseline and for the other, their ratio and, where a difference means something, what the other adds. */
export function compareRow(
  label: string,
  base: number,
  other: number,
  show: (v: number) => string,
  added = true,
): string[] {
  return [label, show(base), show(other), ratio(other, base), added ? show(other - base) : ""];
}
