/**
 * The gateway: the public process, one HTTP port. The hosted MCP route (`/api/mcp`, `/api/mcp/servers/{slug}`) is
 * answered here directly; everything else (console, auth, tRPC, OAuth callback) is forwarded to the Next
 * server this process runs as a child on 127.0.0.1.
 *
 * The MCP route is the hot path of every client's every tool call. As a Next route handler it paid for
 * framework routing, Request/Response objects and web streams; in the same process as Next it still paid for
 * Next's AsyncLocalStorage hooks on every promise. Here it pays for neither (see the README's benchmarks).
 *
 *   tsx server.ts            production (NODE_ENV=production, after `next build`)
 *   tsx watch server.ts      development (NODE_ENV unset: `next dev` behind it)
 *
 * Options: PORT (3000), HOST (0.0.0.0), NEXT_INTERNAL_PORT (the child's port on 127.0.0.1; a free one if unset).
 */
import { createServer } from "node:http";
import path from "node:path";
import nextEnv from "@next/env";
import { env, startsInProduction } from "@switchboard/runtime/env";

// The console's folder: where its build and its .env files are. Run as a process, never imported.
const dir = path.resolve(import.meta.dirname, "../web");
const dev = !startsInProduction();
// What `next start` / `next dev` do first: the console's .env files, under variables already set.
nextEnv.loadEnvConfig(dir, dev);

// Fail at boot with a readable message rather than on the first request.
const { PORT: port, HOST: hostname, NEXT_INTERNAL_PORT, SWITCHBOARD_ENCRYPTION_KEY } = env();
const { parseEncryptionKey } = await import("@switchboard/db/crypto");
parseEncryptionKey(SWITCHBOARD_ENCRYPTION_KEY);

const { handleMcpHttp, matchMcpPath } = await import("./src/mcp/http");
const { handleProtectedResourceMetadata, matchProtectedResourcePath } = await import("./src/mcp/oauth-metadata");
const { forgetLocalSessions } = await import("./src/mcp/sessions");
const { startWorkerSweep } = await import("./src/mcp/worker-sweep");
const { forwardRequest, forwardUpgrade } = await import("./src/console/forward");
const { startConsole } = await import("./src/console/next-process");
const { logger } = await import("@switchboard/runtime/logger");
const { installProcessGuard } = await import("@switchboard/runtime/process-guard");

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
let stopping = false;

const server = createServer((req, res) => {
  const mcp = matchMcpPath(req.url);
  if (mcp) return void handleMcpHttp(req, res, mcp.scope);
  const resourceMetadata = matchProtectedResourcePath(req.url);
  if (resourceMetadata) return handleProtectedResourceMetadata(req, res, resourceMetadata.scope);
  forwardRequest(console_, req, res);
});
server.keepAliveTimeout = 65_000;
server.on("upgrade", (req, socket, head) => forwardUpgrade(console_, req, socket, head));

server.listen(port, hostname, () => {
  logger.info(
    { url: `http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${port}`, dev },
    "console and MCP route listening",
  );
});

async function stop(signal: string, exitCode = 0) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "shutting down");
  // Sessions that will not end, or a console that will not stop, must not keep the process forever.
  setTimeout(() => process.exit(exitCode || 1), 30_000).unref();
  stopWorkerSweep();
  server.close();
  // Long-lived SSE streams would hold close() forever; their clients reconnect to another process.
  server.closeIdleConnections();
  setTimeout(() => server.closeAllConnections(), 5_000).unref();
  await Promise.all([forgetLocalSessions().catch(() => undefined), console_.stop()]);
  process.exit(exitCode);
}
process.on("SIGTERM", () => void stop("SIGTERM"));
process.on("SIGINT", () => void stop("SIGINT"));
// No client's request or upstream's answer may take down the process every team's sessions run in: what escapes
// is logged, one connection's error is survived, anything else stops the gateway cleanly (clients reconnect to
// another process) instead of where it stood.
installProcessGuard({ logger, shutdown: (reason, exitCode) => void stop(reason, exitCode) });
