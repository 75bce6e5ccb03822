import { timingSafeEqual, createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";
import { z } from "zod";

/**
 * Where a process serves `/metrics`: on a port of its own (METRICS_PORT for the gateway, WORKER_METRICS_PORT
 * for the worker, on METRICS_HOST, loopback by default), and, with METRICS_TOKEN set, behind that bearer token
 * (on the gateway's main port too). Off when neither is set: nothing about the deployment is published by default,
 * and a metrics port on a non-loopback address without a token is refused at start.
 */
export const metricsEnvShape = {
  /** Bearer token Prometheus sends (`authorization.credentials` in its scrape config); required off loopback. */
  METRICS_TOKEN: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.string().min(16, "METRICS_TOKEN must be at least 16 characters").optional(),
  ),
  /** Address of the metrics port (METRICS_PORT / WORKER_METRICS_PORT). */
  METRICS_HOST: z.string().default("127.0.0.1"),
};

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/** Why the metrics settings must not start, or null: a metrics port open beyond this host needs a token. */
export function metricsExposureProblem(settings: { port?: number; host: string; token?: string }): string | null {
  if (settings.port === undefined || settings.token || LOOPBACK.test(settings.host)) return null;
  return `METRICS_HOST ${settings.host} would publish /metrics beyond this host without a token: set METRICS_TOKEN (or keep METRICS_HOST on 127.0.0.1)`;
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Whether the request carries the token (compared in constant time); any request when no token is set. */
export function metricsAuthorized(req: IncomingMessage, token: string | undefined): boolean {
  if (!token) return true;
  const sent = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "")?.[1]?.trim();
  return sent !== undefined && timingSafeEqual(digest(sent), digest(token));
}

/** Answers a `/metrics` request: 401 without the token, else the registry in Prometheus's text format. */
export async function serveMetrics(
  registry: Registry,
  req: IncomingMessage,
  res: ServerResponse,
  token: string | undefined,
): Promise<void> {
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain" }).end("Method not allowed\n");
    return;
  }
  if (!metricsAuthorized(req, token)) {
    res
      .writeHead(401, { "www-authenticate": 'Bearer realm="metrics"', "content-type": "text/plain" })
      .end("A bearer token is required\n");
    return;
  }
  try {
    const body = await registry.metrics();
    res.writeHead(200, { "content-type": registry.contentType, "cache-control": "no-store" });
    res.end(req.method === "HEAD" ? undefined : body);
  } catch {
    // A source that failed (the database during a restart): the scrape fails, Prometheus marks it, nothing leaks.
    res.writeHead(503, { "content-type": "text/plain" }).end("Metrics are unavailable right now\n");
  }
}

export function isMetricsPath(url: string | undefined): boolean {
  if (!url) return false;
  const q = url.indexOf("?");
  return (q === -1 ? url : url.slice(0, q)) === "/metrics";
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** A small HTTP server answering `/metrics` only (everything else 404). */
export async function startMetricsServer(options: {
  registry: Registry;
  host: string;
  port: number;
  token?: string;
}): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (!isMetricsPath(req.url)) {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not found\n");
      return;
    }
    void serveMetrics(options.registry, req, res, options.token);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
