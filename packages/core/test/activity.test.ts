import { describe, expect, it } from "vitest";
import {
  LATENCY_OVERFLOW_MS,
  LATENCY_SLOTS,
  emptyHistogram,
  addLatency,
  formatLatency,
  latencyPercentile,
  latencySlot,
  mergeHistograms,
  rollUpCalls,
  summarizeActivity,
} from "../src/activity";

const histogramOf = (ms: number[]) => ms.reduce((h, v) => addLatency(h, v), emptyHistogram());

describe("activity latency histogram", () => {
  it("counts a call in the first slot whose bound it does not exceed", () => {
    expect(latencySlot(0)).toBe(0);
    expect(latencySlot(5)).toBe(0);
    expect(latencySlot(6)).toBe(1);
    expect(latencySlot(250)).toBe(5);
    expect(latencySlot(60_000)).toBe(LATENCY_SLOTS - 2);
    expect(latencySlot(60_001)).toBe(LATENCY_SLOTS - 1);
  });

  it("reads p50 and p95 as the upper bound of the slot holding that rank", () => {
    // 100 calls: 50 at 8 ms, 45 at 200 ms, 5 at 3 s.
    const h = histogramOf([...Array(50).fill(8), ...Array(45).fill(200), ...Array(5).fill(3000)]);
    expect(latencyPercentile(h, 50)).toBe(10);
    expect(latencyPercentile(h, 95)).toBe(250);
    expect(latencyPercentile(h, 96)).toBe(5000);
    expect(latencyPercentile(emptyHistogram(), 50)).toBeNull();
    expect(latencyPercentile(histogramOf([90_000]), 50)).toBe(LATENCY_OVERFLOW_MS);
  });

  it("merges slot by slot, so percentiles of merged rows equal those of all calls together", () => {
    const a = [1, 7, 30, 30, 400];
    const b = [2, 900, 900, 2000, 70_000];
    const merged = mergeHistograms([histogramOf(a), histogramOf(b), null, [1]]);
    const expected = histogramOf([...a, ...b, 1]);
    expect(merged).toEqual(expected);
    expect(latencyPercentile(merged, 95)).toBe(latencyPercentile(expected, 95));
  });

  it("formats percentiles as bounds", () => {
    expect(formatLatency(250)).toBe("≤ 250 ms");
    expect(formatLatency(2500)).toBe("≤ 2.5 s");
    expect(formatLatency(LATENCY_OVERFLOW_MS)).toBe("over 60 s");
    expect(formatLatency(null)).toBe("–");
  });
});

describe("rollUpCalls", () => {
  it("groups calls per bucket and key, counting every outcome but success as an error", () => {
    const base = {
      teamId: "t",
      installationId: "i",
      userId: "u",
      method: "tools/call",
      resultBytes: 10,
      resultTokens: 3,
    };
    const rows = rollUpCalls([
      { ...base, target: "echo", outcome: "success", durationMs: 4, bucket: "m1" },
      { ...base, target: "echo", outcome: "tool_error", durationMs: 40, bucket: "m1" },
      { ...base, target: "echo", outcome: "blocked", durationMs: 0, bucket: "m2" },
      { ...base, target: "add", outcome: "success", durationMs: 4, bucket: "m1" },
    ]);
    expect(rows).toHaveLength(3);
    const echo = rows.find((r) => r.target === "echo" && r.bucket === "m1")!;
    expect(echo).toMatchObject({ calls: 2, errors: 1, resultBytes: 20, resultTokens: 6 });
    expect(summarizeActivity(rows)).toMatchObject({ calls: 4, errors: 2, errorRate: 0.5, p50Ms: 5, p95Ms: 50 });
  });
});
