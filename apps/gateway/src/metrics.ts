import type { IncomingMessage, ServerResponse } from "node:http";
import { env } from "@switchboard/runtime/env";
import { gatewayMetrics, type GatewayMetrics } from "@switchboard/runtime/metrics";
import {
  isMetricsPath,
  metricsExposureProblem,
  serveMetrics,
  startMetricsServer,
  type MetricsServer,
} from "@switchboard/runtime/metrics-server";
import { workerRegistry } from "./mcp/worker-sweep";

/**
 * The gateway's Prometheus metrics: made when the operator asked for them (METRICS_PORT, or METRICS_TOKEN for
 * `/metrics` on the main port), absent otherwise, so the hot path measures nothing it will not publish.
 */
let current: GatewayMetrics | null | undefined;

export function routeMetrics(): GatewayMetrics | undefined {
  if (current === undefined) {
    const { METRICS_PORT, METRICS_TOKEN } = env();
    current = METRICS_PORT !== undefined || METRICS_TOKEN ? gatewayMetrics() : null;
    current?.observeWorkers(async () => (await workerRegistry().members()).live.length);
  }
  return current ?? undefined;
}

/** The metrics port (METRICS_PORT on METRICS_HOST), when set; throws when it would be public without a token. */
export async function startGatewayMetricsServer(): Promise<MetricsServer | undefined> {
  const { METRICS_PORT: port, METRICS_HOST: host, METRICS_TOKEN: token } = env();
  const problem = metricsExposureProblem({ port, host, token });
  if (problem) throw new Error(problem);
  const metrics = routeMetrics();
  if (port === undefined || !metrics) return undefined;
  return startMetricsServer({ registry: metrics.registry, host, port, token });
}

/** `/metrics` on the main port, behind METRICS_TOKEN only (never open there): true when it answered. */
export function handleMainPortMetrics(req: IncomingMessage, res: ServerResponse): boolean {
  const token = env().METRICS_TOKEN;
  if (!token || !isMetricsPath(req.url)) return false;
  void serveMetrics(routeMetrics()!.registry, req, res, token);
  return true;
}
