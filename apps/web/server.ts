/**
 * The web process: one HTTP server on one port. The hosted MCP route (`/api/mcp`, `/api/mcp/servers/{slug}`)
 * is answered here directly, everything else (console, auth, tRPC, OAuth callback) by Next.
 *
 * The MCP route is the hot path of every client's every tool call. As a Next route handler it paid for
 * framework routing, Request/Response objects and web streams on each call, several times the cost of the
 * proxying itself (see the README's benchmark section), so it is served from Node's own request objects.
 *
 *   tsx server.ts            production (NODE_ENV=production, after `next build`)
 *   tsx watch server.ts      development (NODE_ENV unset: Next compiles on demand)
 *
 * Options: PORT (3000), HOST (0.0.0.0).
 */
import { createServer } from "node:http";
import nextEnv from "@next/env";
import next from "next";

const dir = import.meta.dirname;
const dev = process.env.NODE_ENV !== "production";
// What `next start` / `next dev` do first: .env files of this directory, under variables already set.
nextEnv.loadEnvConfig(dir, dev);

const port = Number(process.env.PORT ?? 3000);
const hostname = process.env.HOST ?? "0.0.0.0";

// Fail at boot with a readable message rather than on the first request.
const { env } = await import("./src/env");
env();
const { parseEncryptionKey } = await import("@switchboard/db/crypto");
parseEncryptionKey(process.env.SWITCHBOARD_ENCRYPTION_KEY);

const { handleMcpHttp, matchMcpPath } = await import("./src/server/mcp/http");
const { forgetLocalSessions } = await import("./src/server/mcp/sessions");
const { logger } = await import("./src/server/logger");

const app = next({ dev, dir, hostname, port });
await app.prepare();
const handle = app.getRequestHandler();

const server = createServer((req, res) => {
  const mcp = matchMcpPath(req.url);
  if (mcp) return void handleMcpHttp(req, res, mcp.scope);
  handle(req, res).catch((err: unknown) => {
    logger.error({ err, url: req.url }, "request failed");
    if (!res.headersSent) res.writeHead(500).end("Internal Server Error");
  });
});
server.keepAliveTimeout = 65_000;
if (dev) server.on("upgrade", app.getUpgradeHandler());

server.listen(port, hostname, () => {
  logger.info({ url: `http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${port}`, dev }, "console and MCP route listening");
});

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "shutting down");
  server.close();
  // Long-lived SSE streams would hold close() forever; their clients reconnect to another process.
  server.closeIdleConnections();
  setTimeout(() => server.closeAllConnections(), 5_000).unref();
  await forgetLocalSessions().catch(() => undefined);
  await app.close().catch(() => undefined);
  process.exit(0);
}
process.on("SIGTERM", () => void stop("SIGTERM"));
process.on("SIGINT", () => void stop("SIGINT"));
