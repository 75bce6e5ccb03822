/** A stdio process with no call for 3 minutes is stopped; the next call starts it again. */
export const IDLE_POLICY = Object.freeze({ idleStopMs: 180_000 });

export function isIdle(lastCallAt: number, now: number): boolean {
  return now - lastCallAt >= IDLE_POLICY.idleStopMs;
}
