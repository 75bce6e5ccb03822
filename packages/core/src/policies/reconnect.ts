import { atBackoffCap, backoffBounds, backoffDelay, type BackoffOptions } from "./backoff";

/** Instance reconnects: unlimited attempts, so the cap and the jitter matter more than the start. */
export const RECONNECT_POLICY: Readonly<BackoffOptions> = Object.freeze({ baseMs: 1000, maxMs: 180_000, jitter: 0.1 });

/** Delay before reconnect attempt `attempt` (0-based): 1 s, 2 s, 4 s ... capped at 180 s, with ±10% jitter. */
export function nextReconnectDelay(attempt: number, random: () => number = Math.random): number {
  return backoffDelay(RECONNECT_POLICY, attempt, random);
}

export function reconnectDelayBounds(attempt: number): { min: number; max: number } {
  return backoffBounds(RECONNECT_POLICY, attempt);
}

/** True once the backoff has reached its 180 s cap (attempt 8 onwards). */
export function atMaxDelay(attempt: number): boolean {
  return atBackoffCap(RECONNECT_POLICY, attempt);
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
