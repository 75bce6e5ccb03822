/**
 * Health checks of online instances: every 120 s ± 10% (per instance: healthSchedule), each allowed 60 s. `downAfter` failed checks in a row
 * take the instance out of online (see applyHealthResult); after a failure the next checks come sooner
 * (healthRecheckDelay), so those failures fall within one interval rather than taking three.
 */
export const HEALTH_POLICY = Object.freeze({ intervalMs: 120_000, jitter: 0.1, timeoutMs: 60_000, downAfter: 3 });

export interface HealthState {
  consecutiveFailures: number;
  degraded: boolean;
}

export type HealthEvent =
  | { type: "server_health_degraded"; consecutiveFailures: number }
  | { type: "server_health_restored"; failuresBeforeRestore: number };

export interface HealthStep {
  state: HealthState;
  event: HealthEvent | null;
  /**
   * The upstream stopped answering: the instance leaves online for the status its last error classifies as
   * (offline or error) and the reconnect loop takes over, exactly as after a failed call.
   */
  down: boolean;
}

export const INITIAL_HEALTH_STATE: Readonly<HealthState> = Object.freeze({ consecutiveFailures: 0, degraded: false });

/**
 * Folds one health-check result into the state. On the 3rd consecutive failure `server_health_degraded` fires
 * (once) and `down` says the instance leaves online; a failure after that (a check that overlapped the take-down)
 * says `down` again, which the take-down ignores once the instance has left. `server_health_restored` fires on
 * the first success after degraded (a check that answered before the take-down was applied).
 *
 * One or two failed checks change nothing but the counter: a slow or briefly unreachable server keeps its
 * connection, and the next check comes sooner (healthRecheckDelay) to settle it.
 */
export function applyHealthResult(state: HealthState, ok: boolean): HealthStep {
  if (ok) {
    const event: HealthEvent | null = state.degraded
      ? { type: "server_health_restored", failuresBeforeRestore: state.consecutiveFailures }
      : null;
    return { state: { consecutiveFailures: 0, degraded: false }, event, down: false };
  }
  const consecutiveFailures = state.consecutiveFailures + 1;
  const down = consecutiveFailures >= HEALTH_POLICY.downAfter;
  if (!state.degraded && down) {
    return {
      state: { consecutiveFailures, degraded: true },
      event: { type: "server_health_degraded", consecutiveFailures },
      down,
    };
  }
  return { state: { consecutiveFailures, degraded: state.degraded }, event: null, down };
}

/**
 * Delay before re-checking an instance whose last check failed (not yet `downAfter` times): the `downAfter - 1`
 * re-checks fit in half an interval (120 s: every 30 s), so a dead upstream leaves online within the interval
 * after the first failed check instead of `downAfter` intervals later. `intervalMs` is the schedule's base
 * interval (tests shorten it).
 */
export function healthRecheckDelay(intervalMs: number = HEALTH_POLICY.intervalMs): number {
  return Math.max(1, Math.round(intervalMs / (2 * Math.max(1, HEALTH_POLICY.downAfter - 1))));
}
