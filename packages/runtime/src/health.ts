import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { RedisClient } from "./redis-client";
import type { Logger } from "pino";

/**
 * `/healthz` and `/readyz`, the same in the gateway (on its public port) and the worker (on WORKER_HEALTH_PORT).
 * - `/healthz`: the process is alive and its event loop answers. It checks nothing else, so that an outage of
 *   PostgreSQL or Redis never gets every process restarted (that is readiness's business), and it stays 200
 *   while the process drains.
 * - `/readyz`: PostgreSQL answers, Redis answers, every migration this build ships is applied, and the process
 *   is not shutting down. 503 with a JSON reason otherwise. Each check is bounded (CHECK_TIMEOUT_MS), so the
 *   answer never hangs on a dependency that does not answer.
 * Neither needs authentication nor says more than a sentence per check (the detail goes to the log).
 */

/** How long one check may take before it counts as failed. Probes should allow a little more (3 s). */
export const CHECK_TIMEOUT_MS = 2_000;
/** Answers are reused this long: the endpoint is public, and a flood of probes must not become a flood of queries. */
const REUSE_MS = 1_000;

export interface ReadinessCheck {
  name: string;
  /** Resolves when ready; rejects, or resolves with a sentence saying what is wrong, when not. */
  run(): Promise<void | string>;
  /** The sentence for a failure of `run` (its error's text goes to the log only). */
  failure: string;
}

export interface ReadinessReport {
  ready: boolean;
  status: "ready" | "not_ready" | "draining";
  /** One sentence per check: "ok" or what is wrong. */
  checks: Record<string, string>;
  /** The first problem, for a person reading the probe's answer. */
  reason?: string;
}

class CheckTimeout extends Error {}

function bounded<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new CheckTimeout()), ms);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
}

export class Readiness {
  private draining = false;
  private last: { at: number; report: ReadinessReport } | undefined;
  private running: Promise<ReadinessReport> | undefined;
  /** The last problems logged, so that a probe every few seconds logs an outage once, not at every probe. */
  private logged = "";

  constructor(
    private readonly checks: readonly ReadinessCheck[],
    private readonly options: { logger?: Pick<Logger, "warn" | "info">; timeoutMs?: number } = {},
  ) {}

  /** From now on not ready, whatever the checks say: the process is shutting down. */
  drain(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /** The checks' answer (run at most once per second however many ask; concurrent callers share one run). */
  async report(): Promise<ReadinessReport> {
    if (this.draining) return { ready: false, status: "draining", checks: {}, reason: "The process is shutting down." };
    if (this.last && Date.now() - this.last.at < REUSE_MS) return this.last.report;
    this.running ??= this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  private async run(): Promise<ReadinessReport> {
    const timeoutMs = this.options.timeoutMs ?? CHECK_TIMEOUT_MS;
    const details: Record<string, unknown> = {};
    const results = await Promise.all(
      this.checks.map(async (check): Promise<[string, string]> => {
        try {
          const problem = await bounded(check.run(), timeoutMs);
          return [check.name, problem ?? "ok"];
        } catch (error) {
          if (error instanceof CheckTimeout) return [check.name, `${check.failure} (no answer within ${timeoutMs} ms)`];
          details[check.name] = error instanceof Error ? error.message : String(error);
          return [check.name, check.failure];
        }
      }),
    );
    const checks = Object.fromEntries(results);
    const problems = results.filter(([, v]) => v !== "ok");
    const report: ReadinessReport = problems.length
      ? { ready: false, status: "not_ready", checks, reason: problems[0]![1] }
      : { ready: true, status: "ready", checks };
    const summary = problems.map(([k, v]) => `${k}: ${v}`).join("; ");
    if (summary !== this.logged) {
      if (summary) this.options.logger?.warn({ checks, details }, "not ready");
      else if (this.logged) this.options.logger?.info("ready again");
      this.logged = summary;
    }
    this.last = { at: Date.now(), report };
    return report;
  }
}

/** Redis answers PING on the process's own client. */
export function redisCheck(redis: () => RedisClient): ReadinessCheck {
  return {
    name: "redis",
    failure: "Redis is not reachable",
    run: async () => {
      await redis().ping();
    },
  };
}

const HEALTH_PATHS = new Set(["/healthz", "/readyz"]);

/** Whether the request is for `/healthz` or `/readyz` (a query string is ignored). */
export function isHealthPath(url: string | undefined): boolean {
  if (!url) return false;
  const q = url.indexOf("?");
  return HEALTH_PATHS.has(q === -1 ? url : url.slice(0, q));
}

function answer(req: IncomingMessage, res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "cache-control": "no-store",
    "content-length": Buffer.byteLength(text),
  });
  res.end(req.method === "HEAD" ? undefined : text);
}

/** Answers `/healthz` or `/readyz` (call it when `isHealthPath` says so). Never throws. */
export async function serveHealth(req: IncomingMessage, res: ServerResponse, readiness: Readiness): Promise<void> {
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { allow: "GET, HEAD" }).end();
    return;
  }
  if (!req.url?.startsWith("/readyz")) return answer(req, res, 200, { status: "ok" });
  try {
    const report = await readiness.report();
    const { ready: _, ...body } = report;
    answer(req, res, report.ready ? 200 : 503, body);
  } catch {
    answer(req, res, 503, { status: "not_ready", reason: "The readiness checks could not run." });
  }
}

/**
 * A server answering only `/healthz` and `/readyz` (the worker's, which has no other HTTP port for probes).
 * Resolves once it listens; rejects with a readable error when the port is taken.
 */
export async function startHealthServer(options: {
  host: string;
  port: number;
  readiness: Readiness;
}): Promise<Server & { port: number }> {
  const server = createServer((req, res) => {
    if (isHealthPath(req.url)) return void serveHealth(req, res, options.readiness);
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ status: "not_found" }));
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        new Error(
          `The health endpoints cannot listen on ${options.host}:${options.port} (${err.code ?? err.message}): set WORKER_HEALTH_PORT to a free port, or to off.`,
        ),
      ),
    );
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  return Object.assign(server, { port: typeof address === "object" && address ? address.port : options.port });
}
