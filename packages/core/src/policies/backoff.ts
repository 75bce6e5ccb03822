/**
 * The one backoff of the codebase: every retry loop (instance reconnects, the console child's restarts, Redis
 * reconnects, the tests' fast reconnects) takes its delay from here with its own options.
 */
export interface BackoffOptions {
  /** Delay before attempt 0. */
  baseMs: number;
  /** The delay never grows past this (before jitter). */
  maxMs: number;
  /** Doubling per attempt (default), or `baseMs` more per attempt. */
  growth?: "exponential" | "linear";
  /** Random spread as a share of the delay: 0.1 is ±10%, so a fleet does not retry in step. Default 0. */
  jitter?: number;
}

/**
 * Un-jittered delay before attempt `attempt` (0-based). Attempts may be unlimited (a laptop that slept for a day
 * must reconnect on wake), so huge attempt numbers stay at the cap instead of overflowing to Infinity/NaN.
 */
function baseDelay(options: BackoffOptions, attempt: number): number {
  // NaN and negatives mean "first attempt"; 2^30 is far above any cap, so clamping keeps the arithmetic finite
  // for any attempt count, Infinity included.
  const n = Number.isNaN(attempt) || attempt <= 0 ? 0 : Math.min(Math.floor(attempt), 30);
  const grown = options.growth === "linear" ? options.baseMs * (n + 1) : options.baseMs * 2 ** n;
  return Math.min(grown, options.maxMs);
}

/** Delay before attempt `attempt` (0-based), jittered, in whole milliseconds. */
export function backoffDelay(options: BackoffOptions, attempt: number, random: () => number = Math.random): number {
  const base = baseDelay(options, attempt);
  const offset = base * (options.jitter ?? 0) * (random() * 2 - 1);
  return Math.round(base + offset);
}

/** The smallest and largest delay `backoffDelay` can return for `attempt`. */
export function backoffBounds(options: BackoffOptions, attempt: number): { min: number; max: number } {
  const base = baseDelay(options, attempt);
  const jitter = options.jitter ?? 0;
  return { min: Math.round(base * (1 - jitter)), max: Math.round(base * (1 + jitter)) };
}

/** True once the delay has reached its cap. */
export function atBackoffCap(options: BackoffOptions, attempt: number): boolean {
  return baseDelay(options, attempt) >= options.maxMs;
}
