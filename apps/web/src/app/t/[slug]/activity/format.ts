import { formatLatency } from "@switchboard/core/activity";

export { formatLatency };

export const formatCount = (n: number) => n.toLocaleString("en");

export const formatRate = (rate: number) => `${(rate * 100).toFixed(rate > 0 && rate < 0.01 ? 1 : 0)} %`;

export const formatPerMinute = (n: number) => (n === 0 ? "0" : n < 0.1 ? "< 0.1" : n.toFixed(1));

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}
