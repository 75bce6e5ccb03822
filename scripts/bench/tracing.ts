/**
 * Tracing benchmark: the same tools/call of an echo tool through two route processes in the same run, one with
 * OpenTelemetry off (no SDK: the proxy engine's tracing calls are API no-ops) and one with the SDK on (every
 * request and upstream attempt recorded as spans, batched to an exporter that drops them). What tracing costs
 * on the hot path, as latency with one client and as the route's CPU per call with 32.
 */
import { runOnOff } from "./on-off";

export async function run(): Promise<void> {
  await runOnOff({
    name: "tracing",
    describe: () => "a route with OpenTelemetry off and one with it on",
    routeEnv: (side) => ({ BENCH_TRACING: side }),
  });
}
