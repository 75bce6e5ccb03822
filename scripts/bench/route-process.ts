/**
 * The MCP route alone in a process of its own (ROUTE_PORT), for the tracing and quotas benches: with BENCH_TRACING=on the
 * OpenTelemetry SDK is started as `startTracing` starts it for an operator, every span recorded and batched to an
 * exporter that drops them (what the SDK costs, without a collector's network); otherwise nothing is registered.
 * `/bench/memory` answers `process.memoryUsage()` (for the sessions bench).
 */
import { createServer } from "node:http";
import { writeHeapSnapshot } from "node:v8";
import { BatchSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { env } from "@switchboard/runtime/env";
import { limitHeapGrowth } from "@switchboard/runtime/heap";
import { startTracing } from "@switchboard/runtime/telemetry";

const dropped: SpanExporter = {
  export: (_spans, done) => done({ code: 0 }), // ExportResultCode.SUCCESS
  shutdown: async () => {},
};
if (process.env.BENCH_TRACING === "on")
  startTracing("bench-route", env(), { spanProcessors: [new BatchSpanProcessor(dropped)] });

// What the gateway's server.ts does at start.
limitHeapGrowth(env().HEAP_GROWING_PERCENT);

// Stopped with SIGTERM: exiting through process.exit lets `--cpu-prof` (BENCH_ROUTE_PROFILE) write its profile.
process.once("SIGTERM", () => process.exit(0));

const { handleMcpHttp, matchMcpPath } = await import("../../apps/gateway/src/mcp/http");
const port = Number(process.env.ROUTE_PORT);
createServer((req, res) => {
  // The sessions bench's view of this process's memory, after a full collection when node runs with --expose-gc.
  if (req.url?.startsWith("/bench/memory")) {
    (globalThis as { gc?: () => void }).gc?.();
    // ?snapshot=<file> writes a heap snapshot there too (BENCH_HEAP_SNAPSHOT of the sessions bench).
    const snapshot = new URL(req.url, "http://route").searchParams.get("snapshot");
    if (snapshot) writeHeapSnapshot(snapshot);
    return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(process.memoryUsage()));
  }
  const mcp = matchMcpPath(req.url);
  if (mcp) return void handleMcpHttp(req, res, mcp.scope);
  res.writeHead(404).end();
}).listen(port, "127.0.0.1", () => process.stdout.write(`route listening on ${port}\n`));
