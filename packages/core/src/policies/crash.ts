export const CRASH_POLICY = Object.freeze({ maxCrashes: 3, windowMs: 300_000 });

/**
 * Records a stdio process crash at `now` in a sliding 5-minute window.
 *
 * Reading of "at most 3 crashes in a sliding 5-minute window, then permanently_failed" (the references agree:
 * `crashCount >= 3`): crashes 1 and 2 are auto-restarted; the 3rd crash inside the window is the last one
 * tolerated, so it lands as permanently_failed and no restart follows. Crashes exactly 5 minutes old or older
 * have left the window and are pruned.
 */
export function recordCrash(
  history: readonly number[],
  now: number,
): { history: number[]; crashesInWindow: number; permanentlyFailed: boolean } {
  const next = history.filter((t) => now - t < CRASH_POLICY.windowMs && t <= now);
  next.push(now);
  return {
    history: next,
    crashesInWindow: next.length,
    permanentlyFailed: next.length >= CRASH_POLICY.maxCrashes,
  };
}
