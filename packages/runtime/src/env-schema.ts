import { databaseEnvShape, REDIS_URL_PATTERN, WORKER_HEARTBEAT } from "@switchboard/core/contracts";
import { egressEnvShape } from "@switchboard/core/egress";
import { heapEnvShape } from "./heap";
import { z } from "zod";

/**
 * OpenTelemetry's standard variables that decide whether a process traces (runtime's `startTracing`: off unless
 * an exporter or an OTLP endpoint is named); the SDK reads the others (headers, sampler, resource) itself.
 */
export const telemetryEnvShape = {
  /** `otlp` (OTLP over HTTP, JSON), `console` (stdout), or `none`. */
  OTEL_TRACES_EXPORTER: z
    .enum(["otlp", "console", "none"], { error: "OTEL_TRACES_EXPORTER must be otlp, console or none" })
    .optional(),
  /** Where OTLP/HTTP goes (`/v1/traces` is appended); setting it (or the traces one) turns tracing on. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url("OTEL_EXPORTER_OTLP_ENDPOINT must be a URL").optional(),
  /** The full URL of OTLP/HTTP traces (used as is). */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be a URL").optional(),
  /** `true` turns every signal off whatever else is set (OpenTelemetry's own switch). */
  OTEL_SDK_DISABLED: z.enum(["true", "false"]).optional(),
};

export type TelemetryEnv = z.infer<z.ZodObject<typeof telemetryEnvShape>>;

/**
 * What every process (gateway, console, worker) reads the same way: the database, Redis and its namespace, the
 * encryption key, egress rules and the log level. Each process's `env.ts` spreads this into its own schema and
 * parses it once with `parseEnv`.
 */
export const commonEnvShape = {
  NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
  /** DATABASE_URL and SWITCHBOARD_ENCRYPTION_KEY, read by core's rules (a malformed key is refused here). */
  ...databaseEnvShape,
  /** One Redis server (`redis://`, TLS `rediss://`) or one node of a Redis Cluster (`redis+cluster://`, `rediss+cluster://`). */
  REDIS_URL: z
    .string()
    .regex(REDIS_URL_PATTERN, "REDIS_URL must be a redis://, rediss://, redis+cluster:// or rediss+cluster:// URL")
    .default("redis://127.0.0.1:6379"),
  /** BullMQ key prefix and pub/sub channel prefix: the same value in every process of one deployment. */
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, "REDIS_PREFIX may contain letters, digits, '-' and '_'")
    .default("sb"),
  ...egressEnvShape,
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /**
   * How often a worker renews its heartbeat, and how often the gateway looks for workers whose heartbeat ran out
   * (three missed renewals): the same value in every process. Tests shorten it.
   */
  WORKER_HEARTBEAT_MS: z.coerce.number().int().min(100).max(60_000).default(WORKER_HEARTBEAT.everyMs),
  /**
   * On SIGTERM, how long calls (gateway) or jobs (worker) in flight may take to finish before what is left is cut
   * (gateway) or handed back to the queue (worker). Below Kubernetes' 30 s terminationGracePeriodSeconds.
   */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(25_000),
  ...telemetryEnvShape,
  /**
   * Where the audit trail is streamed as OpenTelemetry logs (OTLP/HTTP, e.g. http://collector:4318/v1/logs); unset,
   * nothing is exported. The exporter reads the other standard OTEL_EXPORTER_OTLP_* settings (headers, timeout).
   */
  OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: z.url().optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  ...heapEnvShape,
};

export class InvalidEnvError extends Error {
  override readonly name = "InvalidEnvError";
}

/** Parses `source` with `schema`; on failure throws one error listing every variable that is wrong. */
export function parseEnv<S extends z.ZodType>(
  schema: S,
  source: Record<string, string | undefined>,
  processName: string,
): z.infer<S> {
  const result = schema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  - ${i.path.join(".") || "(env)"}: ${i.message}`);
    throw new InvalidEnvError(`Invalid environment for the ${processName}:\n${lines.join("\n")}`);
  }
  return result.data;
}
