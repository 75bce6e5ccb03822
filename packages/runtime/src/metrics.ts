import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { ProxyMetrics } from "@switchboard/core/proxy";
import { SERVED_PROTOCOL_VERSIONS } from "@switchboard/core/proxy";
import { JOB_NAMES } from "@switchboard/core/contracts";

/**
 * Every Prometheus metric Switchboard exports, named and explained here and nowhere else (docs/metrics.md lists
 * them for operators). prom-client does the bookkeeping and the text exposition. Labels are installation slugs,
 * methods, outcomes, classes and statuses: never a member, a token or an instance id, so a series count grows with
 * installations, not with people (cardinality). A process makes one set for itself (`gatewayMetrics()` /
 * `workerMetrics()`) and passes it to what it instruments; nothing here is a global.
 */

/** Latency buckets (seconds) of proxied requests: sub-millisecond cache hits to a 30 s call timeout. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Job durations (seconds): a health probe to a long discovery. */
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** A protocol revision as a label: the revisions we serve as they are, anything a client made up as `other`. */
export function revisionLabel(version: string | undefined | null): string {
  return version && SERVED_PROTOCOL_VERSIONS.includes(version) ? version : "other";
}

const KNOWN_JOBS: ReadonlySet<string> = new Set(Object.values(JOB_NAMES));
const RELAYED_METHODS = new Set(["sampling/createMessage", "elicitation/create", "roots/list"]);
export type AuthFailureReason = "missing" | "invalid" | "audience" | "revoked";

export interface GatewayMetrics {
  registry: Registry;
  /** The proxy engine's recorder for a proxy serving one protocol revision. */
  proxy(revision: string): ProxyMetrics;
  /** A request to the MCP route was refused for its credentials (401). */
  authFailure(reason: AuthFailureReason): void;
  /** Guardrails found `count` matches of a category in a call (core guardrails; never the value). */
  guardrailFinding(e: { installation: string; category: string; action: string; where: string }, count: number): void;
  /** Reads the live sessions of this process by revision at each scrape. */
  observeSessions(count: () => Iterable<[revision: string, sessions: number]>): void;
  /** Reads how many workers have a current heartbeat (in Redis) at each scrape. */
  observeWorkers(count: () => Promise<number>): void;
}

export function gatewayMetrics(options: { processMetrics?: boolean } = {}): GatewayMetrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: "switchboard_proxy_requests_total",
    help: "Requests the MCP route forwarded to an upstream (tools/call, resources/read, prompts/get), by installation slug, method, outcome (success, tool_error, error, blocked) and protocol revision",
    labelNames: ["installation", "method", "outcome", "revision"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "switchboard_proxy_request_duration_seconds",
    help: "Time from a forwarded request's admission to its answer, retries included, by installation slug, method and protocol revision",
    labelNames: ["installation", "method", "revision"] as const,
    buckets: REQUEST_BUCKETS,
    registers: [registry],
  });
  const attempts = new Counter({
    name: "switchboard_upstream_attempts_total",
    help: "Attempts made at upstreams for forwarded requests (a retried request counts each), by installation slug",
    labelNames: ["installation"] as const,
    registers: [registry],
  });
  const upstreamErrors = new Counter({
    name: "switchboard_upstream_errors_total",
    help: "Upstream attempts that failed, by installation slug and error class (core classifyError's kind: timeout, connection_refused, http_unavailable, ...)",
    labelNames: ["installation", "class"] as const,
    registers: [registry],
  });
  const retries = new Counter({
    name: "switchboard_proxy_retries_total",
    help: "Attempts beyond the first of forwarded requests (retries), by installation slug and method",
    labelNames: ["installation", "method"] as const,
    registers: [registry],
  });
  const relayed = new Counter({
    name: "switchboard_relayed_client_requests_total",
    help: "Requests upstreams sent their client (sampling, elicitation, roots) relayed to members' clients, by method, outcome (answered, failed) and protocol revision",
    labelNames: ["method", "outcome", "revision"] as const,
    registers: [registry],
  });
  const refused = new Counter({
    name: "switchboard_calls_refused_total",
    help: "Calls the MCP route refused before forwarding them (each is also a blocked request), by installation slug, method, cause (governance, quota, policy, approval, guardrail) and protocol revision",
    labelNames: ["installation", "method", "cause", "revision"] as const,
    registers: [registry],
  });
  const authFailures = new Counter({
    name: "switchboard_auth_failures_total",
    help: "Requests to the MCP route refused for their credentials (401), by reason: missing, invalid (unknown, expired or revoked token), audience (an OAuth token for another route), revoked (the client's access or the member is gone)",
    labelNames: ["reason"] as const,
    registers: [registry],
  });
  const guardrailFindings = new Counter({
    name: "switchboard_guardrail_findings_total",
    help: "Matches the guardrails found in tool arguments, tool results and resource contents, by installation slug, category (credentials, card, iban, email, phone), action (flag, redact, block) and where (arguments, result, resource)",
    labelNames: ["installation", "category", "action", "where"] as const,
    registers: [registry],
  });
  let sessionCount: (() => Iterable<[string, number]>) | undefined;
  new Gauge({
    name: "switchboard_mcp_sessions",
    help: "MCP sessions (2025-11-25 and earlier; 2026-07-28 has none) live in this gateway process, by protocol revision",
    labelNames: ["revision"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [revision, n] of sessionCount?.() ?? []) this.set({ revision }, n);
    },
  });

  let workerCount: (() => Promise<number>) | undefined;
  new Gauge({
    name: "switchboard_workers_alive",
    help: "Workers whose heartbeat is current, as the gateway reads it from Redis at each scrape (0: stdio servers and every job are stopped)",
    registers: [registry],
    async collect() {
      if (workerCount) this.set(await workerCount());
    },
  });

  const proxies = new Map<string, ProxyMetrics>();
  return {
    registry,
    proxy(version) {
      const revision = revisionLabel(version);
      let recorder = proxies.get(revision);
      if (!recorder) {
        recorder = {
          requestEnded({ installation, method, outcome, seconds, attempts: made }) {
            requests.inc({ installation, method, outcome, revision });
            duration.observe({ installation, method, revision }, seconds);
            if (made > 0) attempts.inc({ installation }, made);
            if (made > 1) retries.inc({ installation, method }, made - 1);
          },
          attemptFailed({ installation, errorClass }) {
            upstreamErrors.inc({ installation, class: errorClass });
          },
          serverRequestRelayed({ method, outcome }) {
            relayed.inc({ method: RELAYED_METHODS.has(method) ? method : "other", outcome, revision });
          },
          callRefused({ installation, method, cause }) {
            refused.inc({ installation, method, cause, revision });
          },
        };
        proxies.set(revision, recorder);
      }
      return recorder;
    },
    authFailure(reason) {
      authFailures.inc({ reason });
    },
    guardrailFinding(labels, count) {
      guardrailFindings.inc(labels, count);
    },
    observeSessions(count) {
      sessionCount = count;
    },
    observeWorkers(count) {
      workerCount = count;
    },
  };
}

export type HealthResult = "ok" | "failed";
export type OAuthRefreshOutcome = "refreshed" | "superseded" | "reauth" | "retry" | "none" | "error";
export type StdioRefusal = "command_not_allowed" | "sandbox_unavailable";

export interface WorkerMetrics {
  registry: Registry;
  /** A job ended: `failed` when it threw (a delayed or rescheduled job is not a failure). */
  jobEnded(job: string, seconds: number, failed: boolean): void;
  healthCheck(result: HealthResult): void;
  /** The reconnect loop tried an offline or error instance once. */
  reconnectAttempt(): void;
  oauthRefresh(outcome: OAuthRefreshOutcome): void;
  stdioRefused(reason: StdioRefusal): void;
  /** What is read afresh at each scrape: queue counts, instances by status, running stdio processes. */
  observe(sources: {
    queue?: () => Promise<Record<string, number>>;
    instances?: () => Promise<Iterable<[status: string, count: number]>>;
    stdioProcesses?: () => number;
  }): void;
}

export function workerMetrics(options: { processMetrics?: boolean } = {}): WorkerMetrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const jobDuration = new Histogram({
    name: "switchboard_job_duration_seconds",
    help: "Time the worker spent on a job, by job name (instance.health, instance.discover, ...)",
    // Not `job`: Prometheus's own target label, which would rename ours to exported_job.
    labelNames: ["job_name"] as const,
    buckets: JOB_BUCKETS,
    registers: [registry],
  });
  const jobFailures = new Counter({
    name: "switchboard_job_failures_total",
    help: "Jobs that failed (threw; BullMQ retries them or gives up), by job name",
    labelNames: ["job_name"] as const,
    registers: [registry],
  });
  const health = new Counter({
    name: "switchboard_health_checks_total",
    help: "Health probes of online instances, by result (ok, failed)",
    labelNames: ["result"] as const,
    registers: [registry],
  });
  const reconnects = new Counter({
    name: "switchboard_reconnect_attempts_total",
    help: "Attempts of the reconnect loop at offline and error instances",
    registers: [registry],
  });
  const oauth = new Counter({
    name: "switchboard_oauth_refreshes_total",
    help: "Refreshes of members' upstream OAuth tokens, by outcome (refreshed, superseded, reauth: the grant is gone, retry: the provider failed, none: nothing to refresh, error)",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const refusals = new Counter({
    name: "switchboard_stdio_refusals_total",
    help: "Stdio server launches refused by the worker, by reason (command_not_allowed: the deployment's policy; sandbox_unavailable: the sandbox cannot run it on this host)",
    labelNames: ["reason"] as const,
    registers: [registry],
  });
  let sources: Parameters<WorkerMetrics["observe"]>[0] = {};
  new Gauge({
    name: "switchboard_queue_jobs",
    help: "Jobs in the worker's BullMQ queue, by state (waiting, active, delayed, prioritized, failed)",
    labelNames: ["state"] as const,
    registers: [registry],
    async collect() {
      if (!sources.queue) return;
      const counts = await sources.queue();
      this.reset();
      for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
    },
  });
  new Gauge({
    name: "switchboard_instances",
    help: "Instances by status, deployment-wide (read from PostgreSQL at each scrape; every worker reports the same figures)",
    labelNames: ["status"] as const,
    registers: [registry],
    async collect() {
      if (!sources.instances) return;
      const rows = await sources.instances();
      this.reset();
      for (const [status, n] of rows) this.set({ status }, n);
    },
  });
  new Gauge({
    name: "switchboard_stdio_processes",
    help: "Stdio server processes this worker runs (shared and per-client)",
    registers: [registry],
    collect() {
      if (sources.stdioProcesses) this.set(sources.stdioProcesses());
    },
  });
  return {
    registry,
    jobEnded(name, seconds, failed) {
      // A name no definition has (a stray producer) is one label, not one per name.
      const job_name = KNOWN_JOBS.has(name) ? name : "unknown";
      jobDuration.observe({ job_name }, seconds);
      if (failed) jobFailures.inc({ job_name });
    },
    healthCheck: (result) => health.inc({ result }),
    reconnectAttempt: () => reconnects.inc(),
    oauthRefresh: (outcome) => oauth.inc({ outcome }),
    stdioRefused: (reason) => refusals.inc({ reason }),
    observe(next) {
      sources = { ...sources, ...next };
    },
  };
}
