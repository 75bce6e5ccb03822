export const HEALTH_POLICY = Object.freeze({ intervalMs: 120_000, jitter: 0.1, timeoutMs: 60_000, degradedAfter: 3 });

/** Next health-check interval: 120 s ± 10%. */
export function nextHealthInterval(random: () => number = Math.random): number {
  const offset = HEALTH_POLICY.intervalMs * HEALTH_POLICY.jitter * (random() * 2 - 1);
  return Math.round(HEALTH_POLICY.intervalMs + offset);
}

export interface HealthState {
  consecutiveFailures: number;
  degraded: boolean;
}

export type HealthEvent =
  | { type: "server_health_degraded"; consecutiveFailures: number }
  | { type: "server_health_restored"; failuresBeforeRestore: number };

export const INITIAL_HEALTH_STATE: Readonly<HealthState> = Object.freeze({ consecutiveFailures: 0, degraded: false });

/**
 * Folds one health-check result into the state. `server_health_degraded` fires once, on the 3rd consecutive
 * failure; `server_health_restored` fires on the first success after that.
 *
 * Health checks are an early warning only: they never change the instance status and never trigger a
 * reconnect. Only real call failures and transport disconnects do (a slow or briefly unreachable server keeps
 * its connection).
 */
export function applyHealthResult(state: HealthState, ok: boolean): { state: HealthState; event: HealthEvent | null } {
  if (ok) {
    const event: HealthEvent | null = state.degraded
      ? { type: "server_health_restored", failuresBeforeRestore: state.consecutiveFailures }
      : null;
    return { state: { consecutiveFailures: 0, degraded: false }, event };
  }
  const consecutiveFailures = state.consecutiveFailures + 1;
  if (!state.degraded && consecutiveFailures >= HEALTH_POLICY.degradedAfter) {
    return {
      state: { consecutiveFailures, degraded: true },
      event: { type: "server_health_degraded", consecutiveFailures },
    };
  }
  return { state: { consecutiveFailures, degraded: state.degraded }, event: null };
}
