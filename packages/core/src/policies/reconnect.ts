export const RECONNECT_POLICY = Object.freeze({ baseMs: 1000, maxMs: 180_000, jitter: 0.1 });

/**
 * Un-jittered delay before reconnect attempt `attempt` (0-based): 1 s, 2 s, 4 s ... capped at 180 s.
 * Attempts are unlimited (a laptop that slept for a day must reconnect on wake), so huge attempt numbers must
 * stay at the cap instead of overflowing to Infinity/NaN.
 */
function baseDelay(attempt: number): number {
  // NaN and negatives mean "first attempt"; 2^30 s is far above the cap, so clamping the exponent keeps the
  // arithmetic finite for any attempt count, Infinity included.
  const exponent = Number.isNaN(attempt) || attempt <= 0 ? 0 : Math.min(Math.floor(attempt), 30);
  return Math.min(RECONNECT_POLICY.baseMs * 2 ** exponent, RECONNECT_POLICY.maxMs);
}

/** Delay before reconnect attempt `attempt`, with ±10% jitter so a fleet of instances does not retry in step. */
export function nextReconnectDelay(attempt: number, random: () => number = Math.random): number {
  const base = baseDelay(attempt);
  const offset = base * RECONNECT_POLICY.jitter * (random() * 2 - 1);
  return Math.round(base + offset);
}

export function reconnectDelayBounds(attempt: number): { min: number; max: number } {
  const base = baseDelay(attempt);
  return {
    min: Math.round(base * (1 - RECONNECT_POLICY.jitter)),
    max: Math.round(base * (1 + RECONNECT_POLICY.jitter)),
  };
}

/** True once the backoff has reached its 180 s cap (attempt 8 onwards). */
export function atMaxDelay(attempt: number): boolean {
  return baseDelay(attempt) >= RECONNECT_POLICY.maxMs;
}

/**
 * A permanently down server retried every 3 minutes would emit ~480 `server_reconnecting` events a day.
 * While backing off every attempt is reported; once at the cap, at most one per 10 minutes.
 */
export const RECONNECT_EVENT_THROTTLE_MS = 600_000;

export function shouldEmitReconnecting(input: {
  attempt: number;
  lastEmittedAt: number | null | undefined;
  now: number;
}): boolean {
  if (!atMaxDelay(input.attempt)) return true;
  if (input.lastEmittedAt === null || input.lastEmittedAt === undefined) return true;
  return input.now - input.lastEmittedAt >= RECONNECT_EVENT_THROTTLE_MS;
}
