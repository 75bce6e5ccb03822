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
  // Reports may arrive out of order (crash jobs wait for the instance's lock): the window ends at the latest
  // crash known, not at this one, so a late report of an earlier crash still counts with the later ones.
  const latest = Math.max(now, ...history);
  const next = history.filter((t) => latest - t < CRASH_POLICY.windowMs);
  if (latest - now < CRASH_POLICY.windowMs) next.push(now);
  next.sort((a, b) => a - b);
  return {
    history: next,
    crashesInWindow: next.length,
    permanentlyFailed: next.length >= CRASH_POLICY.maxCrashes,
  };
}
