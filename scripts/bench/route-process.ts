/**
 * The MCP route alone in a process of its own (ROUTE_PORT), for the tracing and quotas benches: with BENCH_TRACING=on the
 * OpenTelemetry SDK is started as `startTracing` starts it for an operator, every span recorded and batched to an
 * exporter that drops them (what the SDK costs, without a collector's network); otherwise nothing is registered.
 */
import { createServer } from "node:http";
import { BatchSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { env } from "@switchboard/runtime/env";
import { startTracing } from "@switchboard/runtime/telemetry";

const dropped: SpanExporter = {
  export: (_spans, done) => done({ code: 0 }), // ExportResultCode.SUCCESS
  shutdown: async () => {},
};
if (process.env.BENCH_TRACING === "on")
  startTracing("bench-route", env(), { spanProcessors: [new BatchSpanProcessor(dropped)] });

const { handleMcpHttp, matchMcpPath } = await import("../../apps/gateway/src/mcp/http");
const port = Number(process.env.ROUTE_PORT);
createServer((req, res) => {
  const mcp = matchMcpPath(req.url);
  if (mcp) return void handleMcpHttp(req, res, mcp.scope);
  res.writeHead(404).end();
}).listen(port, "127.0.0.1", () => process.stdout.write(`route listening on ${port}\n`));
