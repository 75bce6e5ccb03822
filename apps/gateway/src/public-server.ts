import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { env } from "@switchboard/runtime/env";
import { isHealthPath, serveHealth, type Readiness } from "@switchboard/runtime/health";
import type { Logger } from "@switchboard/runtime/logger";
import { HttpDrain } from "./lifecycle/drain";
import { gatewayReadiness } from "./lifecycle/health";
import { handleMcpHttp, matchMcpPath } from "./mcp/http";
import { handleProtectedResourceMetadata, matchProtectedResourcePath } from "./mcp/oauth-metadata";
import { forgetLocalSessions } from "./mcp/sessions";

export interface PublicServer {
  server: Server;
  drain: HttpDrain;
  readiness: Readiness;
}

/**
 * How long an idle kept-alive connection stays open: longer than clients and load balancers keep theirs (Node's
 * agent 5 s, AWS ALB 60 s), so the client side closes first. A server that closes first races the client's next
 * request on that connection, which then fails with a reset (Node's own default is 5 s, the same as its agent's).
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * The gateway's one public port: `/healthz` and `/readyz` (no authentication), the hosted MCP route and its
 * OAuth metadata answered here, everything else handed to `forward` (the console; 404 without one).
 */
export function createPublicServer(options: {
  forward?: (req: IncomingMessage, res: ServerResponse) => void;
  upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
}): PublicServer {
  const readiness = gatewayReadiness();
  const server = createServer((req, res) => {
    if (isHealthPath(req.url)) return void serveHealth(req, res, readiness);
    const mcp = matchMcpPath(req.url);
    if (mcp) return void handleMcpHttp(req, res, mcp.scope);
    const resourceMetadata = matchProtectedResourcePath(req.url);
    if (resourceMetadata) return handleProtectedResourceMetadata(req, res, resourceMetadata.scope);
    if (options.forward) return options.forward(req, res);
    res.writeHead(404).end();
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  if (options.upgrade) server.on("upgrade", options.upgrade);
  return { server, drain: new HttpDrain(server), readiness };
}

/**
 * SIGTERM and SIGINT (and what the process guard cannot survive) stop the gateway gracefully: not ready at once,
 * the listener closed, long-lived streams ended, calls in flight answered within SHUTDOWN_GRACE_MS, then the
 * sessions dropped from memory (Redis keeps them: their clients go on on another process) and `cleanup` run.
 * Returns the stop function (idempotent).
 */
export function installGracefulShutdown(options: {
  publicServer: PublicServer;
  logger: Pick<Logger, "info" | "warn" | "error">;
  /** Run first (stop timers that start new work). */
  beforeDrain?: () => void;
  /** Run once the calls are done (stop the console child). */
  cleanup?: () => Promise<unknown>;
}): (reason: string, exitCode?: number) => void {
  const { publicServer, logger } = options;
  let stopping = false;
  const stop = (reason: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    const graceMs = env().SHUTDOWN_GRACE_MS;
    logger.info({ reason, graceMs, inFlight: publicServer.drain.inFlight }, "shutting down: finishing calls in flight");
    publicServer.readiness.drain();
    // A cleanup that hangs must not keep the process forever.
    setTimeout(() => process.exit(exitCode || 1), graceMs + 5_000).unref();
    options.beforeDrain?.();
    void (async () => {
      const { cut, streams } = await publicServer.drain.drain(graceMs);
      if (cut > 0) logger.warn({ cut, streams, graceMs }, "grace period over: requests still in flight were cut");
      else logger.info({ streams }, "calls in flight finished");
      await Promise.all([forgetLocalSessions().catch(() => undefined), options.cleanup?.().catch(() => undefined)]);
      process.exit(exitCode);
    })().catch((err: unknown) => {
      logger.error({ err }, "shutdown failed");
      process.exit(1);
    });
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  return stop;
}
