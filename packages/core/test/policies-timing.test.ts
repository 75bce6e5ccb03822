import { describe, expect, it } from "vitest";

import {
  CRASH_POLICY,
  HEALTH_POLICY,
  IDLE_POLICY,
  RECONNECT_EVENT_THROTTLE_MS,
  RECONNECT_POLICY,
  applyHealthResult,
  atBackoffCap,
  atMaxDelay,
  backoffBounds,
  backoffDelay,
  healthRecheckDelay,
  isIdle,
  nextReconnectDelay,
  reconnectDelayBounds,
  recordCrash,
  shouldEmitReconnecting,
  type HealthState,
} from "../src/policies";

const mid = () => 0.5; // no jitter
const lowest = () => 0;
const highest = () => 0.999_999;

describe("backoff", () => {
  it("doubles from the base up to the cap by default, without jitter unless asked", () => {
    const options = { baseMs: 1_000, maxMs: 30_000 };
    expect([0, 1, 2, 3, 4, 5, 6].map((a) => backoffDelay(options, a, highest))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000,
    ]);
    expect(atBackoffCap(options, 4)).toBe(false);
    expect(atBackoffCap(options, 5)).toBe(true);
  });

  it("grows by the base each attempt when linear, as Redis reconnects do", () => {
    const options = { baseMs: 200, maxMs: 5_000, growth: "linear" as const };
    expect([0, 1, 2, 23, 24, 25, 1_000].map((a) => backoffDelay(options, a))).toEqual([
      200, 400, 600, 4_800, 5_000, 5_000, 5_000,
    ]);
  });

  it("spreads by the jitter share on both sides and stays finite for any attempt", () => {
    const options = { baseMs: 50, maxMs: 9_000, jitter: 0.1 };
    expect(backoffBounds(options, 2)).toEqual({ min: 180, max: 220 });
    expect(backoffDelay(options, 2, lowest)).toBe(180);
    for (const attempt of [Infinity, NaN, -3, 2 ** 40])
      expect(Number.isFinite(backoffDelay(options, attempt))).toBe(true);
    expect(backoffDelay(options, Infinity, mid)).toBe(9_000);
  });
});

describe("reconnect backoff", () => {
  it("keeps the documented parameters", () => {
    expect(RECONNECT_POLICY).toEqual({ baseMs: 1000, maxMs: 180_000, jitter: 0.1 });
  });

  it.each([
    [0, 1000],
    [1, 2000],
    [2, 4000],
    [3, 8000],
    [6, 64_000],
    [7, 128_000],
    [8, 180_000],
    [9, 180_000],
    [1000, 180_000],
    [Number.MAX_SAFE_INTEGER, 180_000],
    [Infinity, 180_000],
    [Number.NaN, 1000],
    [-3, 1000],
  ])("waits %s ms before attempt %s without jitter", (attempt, expected) => {
    expect(nextReconnectDelay(attempt, mid)).toBe(expected);
  });

  it.each([0, 1, 4, 7, 8, 50, 10_000])("keeps attempt %i within ±10%% of its base", (attempt) => {
    const { min, max } = reconnectDelayBounds(attempt);
    expect(nextReconnectDelay(attempt, lowest)).toBe(min);
    expect(nextReconnectDelay(attempt, highest)).toBeLessThanOrEqual(max);
    expect(nextReconnectDelay(attempt, highest)).toBeGreaterThan(nextReconnectDelay(attempt, mid));
    for (let i = 0; i < 200; i++) {
      const d = nextReconnectDelay(attempt);
      expect(d).toBeGreaterThanOrEqual(min);
      expect(d).toBeLessThanOrEqual(max);
    }
  });

  it("spreads the first retry between 0.9 s and 1.1 s and the capped one between 162 s and 198 s", () => {
    expect(reconnectDelayBounds(0)).toEqual({ min: 900, max: 1100 });
    expect(reconnectDelayBounds(8)).toEqual({ min: 162_000, max: 198_000 });
  });

  it("reaches the cap at attempt 8", () => {
    expect(atMaxDelay(7)).toBe(false);
    expect(atMaxDelay(8)).toBe(true);
    expect(atMaxDelay(1e9)).toBe(true);
  });
});

describe("server_reconnecting throttling", () => {
  it.each([
    ["every attempt while still backing off", { attempt: 3, lastEmittedAt: 1_000, now: 1_001 }, true],
    ["the first attempt at the cap", { attempt: 8, lastEmittedAt: null, now: 0 }, true],
    [
      "at the cap, 9 min 59 s after the last one",
      { attempt: 12, lastEmittedAt: 0, now: RECONNECT_EVENT_THROTTLE_MS - 1 },
      false,
    ],
    [
      "at the cap, exactly 10 min after the last one",
      { attempt: 12, lastEmittedAt: 0, now: RECONNECT_EVENT_THROTTLE_MS },
      true,
    ],
    ["at the cap with no previous event", { attempt: 12, lastEmittedAt: undefined, now: 5 }, true],
  ])("emits %s: %s", (_name, input, expected) => {
    expect(shouldEmitReconnecting(input)).toBe(expected);
  });

  it("emits at most one event per 10 minutes for a server that stays down a day", () => {
    let now = 0;
    let lastEmittedAt: number | null = null;
    let emitted = 0;
    for (let attempt = 8; now < 86_400_000; attempt++) {
      if (shouldEmitReconnecting({ attempt, lastEmittedAt, now })) {
        emitted++;
        lastEmittedAt = now;
      }
      now += nextReconnectDelay(attempt, mid);
    }
    expect(emitted).toBeLessThanOrEqual(86_400_000 / RECONNECT_EVENT_THROTTLE_MS + 1);
    expect(emitted).toBeGreaterThan(100);
  });
});

describe("health checks", () => {
  it("checks every 120 s ± 10%, each check allowed 60 s", () => {
    expect(HEALTH_POLICY).toEqual({ intervalMs: 120_000, jitter: 0.1, timeoutMs: 60_000, downAfter: 3 });
  });

  function run(results: boolean[]) {
    let state: HealthState = { consecutiveFailures: 0, degraded: false };
    const events = [];
    const downs = [];
    for (const ok of results) {
      const step = applyHealthResult(state, ok);
      state = step.state;
      events.push(step.event);
      downs.push(step.down);
    }
    return { state, events, downs };
  }

  it("raises degraded once and takes the instance down on the third consecutive failure", () => {
    const { state, events, downs } = run([false, false, false, false, false]);
    expect(events).toEqual([null, null, { type: "server_health_degraded", consecutiveFailures: 3 }, null, null]);
    // A check that overlapped the take-down says so again; the take-down ignores an instance already down.
    expect(downs).toEqual([false, false, true, true, true]);
    expect(state).toEqual({ consecutiveFailures: 5, degraded: true });
  });

  it("restores on the first success after degraded and reports how many checks failed", () => {
    const { state, events, downs } = run([false, false, false, false, true, true]);
    expect(events.at(-2)).toEqual({ type: "server_health_restored", failuresBeforeRestore: 4 });
    expect(events.at(-1)).toBeNull();
    expect(downs.slice(-2)).toEqual([false, false]);
    expect(state).toEqual({ consecutiveFailures: 0, degraded: false });
  });

  it("stays quiet and keeps the instance up when failures never reach three in a row", () => {
    const { events, downs } = run([false, false, true, false, false, true]);
    expect(events.every((e) => e === null)).toBe(true);
    expect(downs.every((d) => !d)).toBe(true);
  });

  it("re-checks after a failure soon enough that the failures taking an instance down fit in one interval", () => {
    expect(healthRecheckDelay()).toBe(30_000);
    expect(healthRecheckDelay(400)).toBe(100);
    expect((HEALTH_POLICY.downAfter - 1) * healthRecheckDelay()).toBeLessThan(HEALTH_POLICY.intervalMs);
  });

  it("does not mutate the state it is given", () => {
    const state = Object.freeze({ consecutiveFailures: 2, degraded: false });
    expect(() => applyHealthResult(state, false)).not.toThrow();
    expect(state.consecutiveFailures).toBe(2);
  });
});

describe("stdio crash limit", () => {
  const MIN = 60_000;

  it("keeps the documented window", () => {
    expect(CRASH_POLICY).toEqual({ maxCrashes: 3, windowMs: 300_000 });
  });

  it("restarts after the first two crashes and fails permanently on the third inside five minutes", () => {
    const first = recordCrash([], 0);
    expect(first).toEqual({ history: [0], crashesInWindow: 1, permanentlyFailed: false });
    const second = recordCrash(first.history, 1 * MIN);
    expect(second.permanentlyFailed).toBe(false);
    const third = recordCrash(second.history, 4 * MIN);
    expect(third).toEqual({ history: [0, MIN, 4 * MIN], crashesInWindow: 3, permanentlyFailed: true });
  });

  it("forgets crashes that slid out of the window", () => {
    const r = recordCrash([0, 1 * MIN], 5 * MIN + 1);
    expect(r).toEqual({ history: [MIN, 5 * MIN + 1], crashesInWindow: 2, permanentlyFailed: false });
  });

  it("treats a crash exactly five minutes old as outside the window", () => {
    expect(recordCrash([0, 2 * MIN], 5 * MIN).crashesInWindow).toBe(2);
    expect(recordCrash([1, 2 * MIN], 5 * MIN).crashesInWindow).toBe(3);
    // A crash reported after a later one (its job waited for the instance's lock) still counts.
    expect(recordCrash([2 * MIN], 1 * MIN)).toEqual({
      history: [1 * MIN, 2 * MIN],
      crashesInWindow: 2,
      permanentlyFailed: false,
    });
    expect(recordCrash([10 * MIN], 1 * MIN).crashesInWindow).toBe(1);
  });

  it("never fails permanently when crashes are spaced more than five minutes apart", () => {
    let history: number[] = [];
    for (let i = 0; i < 20; i++) {
      const r = recordCrash(history, i * 3 * MIN);
      expect(r.permanentlyFailed).toBe(false);
      history = r.history;
    }
  });

  it("does not mutate the history it is given", () => {
    const history = Object.freeze([0, MIN]);
    recordCrash(history, 2 * MIN);
    expect(history).toEqual([0, MIN]);
  });
});

describe("idle stop", () => {
  it.each([
    [0, 179_999, false],
    [0, 180_000, true],
    [10_000, 500_000, true],
  ])("last call at %i, now %i: idle %s", (last, now, expected) => {
    expect(IDLE_POLICY.idleStopMs).toBe(180_000);
    expect(isIdle(last, now)).toBe(expected);
  });
});
