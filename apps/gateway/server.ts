/**
 * The gateway: the public process, one HTTP port. The hosted MCP route (`/api/mcp`, `/api/mcp/servers/{slug}`) is
 * answered here directly; everything else (console, auth, tRPC, OAuth callback) is forwarded to the Next
 * server this process runs as a child on 127.0.0.1.
 *
 * The MCP route is the hot path of every client's every tool call. As a Next route handler it paid for
 * framework routing, Request/Response objects and web streams; in the same process as Next it still paid for
 * Next's AsyncLocalStorage hooks on every promise. Here it pays for neither (see the README's benchmarks).
 *
 *   node dist/server.js      production (`npm run build` first; NODE_ENV=production: Next's standalone server)
 *   tsx watch server.ts      development (NODE_ENV unset: `next dev` behind it)
 *
 * Options: PORT (3000), HOST (0.0.0.0), NEXT_INTERNAL_PORT (the child's port on 127.0.0.1; a free one if unset).
 */
import path from "node:path";
import nextEnv from "@next/env";
import { env, startsInProduction } from "@switchboard/runtime/env";

// The console's folder: where its build and its .env files are. Run as a process, never imported: from the
// package's folder as source (tsx), from dist/ once compiled (scripts/build/bundle.mjs).
const gatewayDir =
  path.basename(import.meta.dirname) === "dist" ? path.dirname(import.meta.dirname) : import.meta.dirname;
const dir = path.resolve(gatewayDir, "../web");
const dev = !startsInProduction();
// What `next start` / `next dev` do first: the console's .env files, under variables already set.
nextEnv.loadEnvConfig(dir, dev);

// Fail at boot with a readable message rather than on the first request. The environment is parsed once, the
// encryption key with it (a malformed one is refused there), and packages/db reads the database's from it.
const { PORT: port, HOST: hostname, NEXT_INTERNAL_PORT } = env();
const { useProcessEnv } = await import("@switchboard/db/env");
useProcessEnv(env());
// Live sessions are held for long while calls leave garbage behind: keep RSS near the live data.
const { limitHeapGrowth } = await import("@switchboard/runtime/heap");
limitHeapGrowth(env().HEAP_GROWING_PERCENT);
// OpenTelemetry tracing when the operator configured it (OTEL_*), before the route and the job queue are built.
const { startTracing, stopTracing } = await import("@switchboard/runtime/telemetry");
startTracing("switchboard-gateway", env());

const { createPublicServer, installGracefulShutdown } = await import("./src/public-server");
const { startWorkerSweep } = await import("./src/mcp/worker-sweep");
const { forwardRequest, forwardUpgrade } = await import("./src/console/forward");
const { startConsole } = await import("./src/console/next-process");
const { logger } = await import("@switchboard/runtime/logger");
const { installProcessGuard } = await import("@switchboard/runtime/process-guard");
const { handleMainPortMetrics, startGatewayMetricsServer } = await import("./src/metrics");

// A metrics port that would be public without a token stops the start here, with the sentence saying why.
const metricsServer = await startGatewayMetricsServer().catch((err: unknown) => {
  process.stderr.write(`switchboard gateway cannot start.\n${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
if (metricsServer) logger.info({ port: metricsServer.port }, "metrics listening");

const console_ = await startConsole({
  dir,
  dev,
  port: NEXT_INTERNAL_PORT,
  // The MCP route keeps serving meanwhile; console requests get a 502 that says it is restarting.
  onRestart: ({ code, signal, delayMs }) =>
    logger.error({ code, signal, delayMs }, "the console server exited; starting it again"),
});
// Workers that stopped without leaving (SIGKILL, a lost host): their stdio servers are taken back.
const stopWorkerSweep = startWorkerSweep();
const publicServer = createPublicServer({
  forward: (req, res) => {
    if (handleMainPortMetrics(req, res)) return;
    forwardRequest(console_, req, res);
  },
  upgrade: (req, socket, head) => forwardUpgrade(console_, req, socket, head),
});
publicServer.server.listen(port, hostname, () => {
  logger.info(
    { url: `http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${port}`, dev },
    "console and MCP route listening",
  );
});

// SIGTERM: not ready at once, calls in flight finish (SHUTDOWN_GRACE_MS), clients' sessions go on elsewhere.
const stop = installGracefulShutdown({
  publicServer,
  logger,
  beforeDrain: stopWorkerSweep,
  cleanup: async () => {
    await Promise.all([console_.stop(), metricsServer?.close()]);
    await stopTracing().catch(() => undefined);
  },
});
// No client's request or upstream's answer may take down the process every team's sessions run in: what escapes
// is logged, one connection's error is survived, anything else stops the gateway cleanly (clients reconnect to
// another process) instead of where it stood.
installProcessGuard({ logger, shutdown: stop });
