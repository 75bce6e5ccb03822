import { HEALTH_POLICY } from "@switchboard/core/policies";
import { parsePortList, SANDBOX_DEFAULTS, SANDBOX_DISK_MAX_MB } from "@switchboard/core/sandbox";
import { DEFAULT_SECCOMP_PROFILE } from "./sandbox/seccomp";
import { commonEnvShape, parseEnv } from "@switchboard/runtime/env-schema";
import { metricsEnvShape } from "@switchboard/runtime/metrics-server";
import { envSchema as dbEnvSchema } from "@switchboard/db/env";
import { z } from "zod";

export { InvalidEnvError } from "@switchboard/runtime/env-schema";

/** The worker's environment, parsed once at boot (main.ts); everything else receives the parsed object. */
const schema = z.object({
  ...commonEnvShape,
  /** Connections of the worker's Prisma pool (packages/db's rule). */
  DATABASE_POOL_MAX: dbEnvSchema.shape.DATABASE_POOL_MAX,
  /** Jobs in flight at once. Mostly health probes, which wait on the network: 100 keeps 10,000 instances fed. */
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(100),
  /**
   * How long a job's lock lives without renewal (ms). A worker killed mid-job (SIGKILL, OOM, lost host) holds
   * its jobs until this runs out; then the stalled-job check (every half of it) hands them to another worker,
   * and the instance locks it held (twice as long) expire too. Tests shorten it; production keeps 60 s.
   */
  WORKER_LOCK_DURATION_MS: z.coerce.number().int().min(1_000).max(600_000).default(60_000),
  /**
   * Base interval of every online instance's health check (ms; ± 10% per instance). Three failed checks in a row,
   * the last two of them sooner, take an instance out of online. Tests shorten it.
   */
  HEALTH_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(HEALTH_POLICY.intervalMs),
  /**
   * Where the worker answers `/healthz` and `/readyz` (on every address, for the orchestrator's probes); `0` or
   * `off`: no health server.
   */
  WORKER_HEALTH_PORT: z.preprocess(
    (v) => (v === "off" ? "0" : v),
    z.coerce.number({ error: "WORKER_HEALTH_PORT must be a port or off" }).int().min(0).max(65535).default(3003),
  ),
  /** Internal Streamable HTTP endpoint for hosted stdio servers: private address only. */
  BRIDGE_HOST: z.string().default("127.0.0.1"),
  BRIDGE_PORT: z.coerce.number().int().min(0).max(65535).default(7410),
  /** The address other processes (the web proxy, other workers) use to reach this worker's bridge. */
  BRIDGE_PUBLIC_URL: z.url().optional(),
  /** Without it the bridge stays off: stdio servers still run here, but the proxy cannot reach them. */
  BRIDGE_SECRET: z.string().min(32, "BRIDGE_SECRET must be at least 32 characters").optional(),
  /**
   * `on`: every stdio server runs in its own bubblewrap sandbox; when the sandbox cannot start on this host,
   * stdio servers are refused with a readable reason. `off`: they run unconfined as the worker's user (the
   * console shows a warning on every stdio installation).
   */
  STDIO_SANDBOX: z.enum(["on", "off"], { error: "STDIO_SANDBOX must be on or off" }).default("on"),
  /** Per-instance homes of sandboxed servers (default /var/lib/switchboard/sandboxes, else under the OS temp dir). */
  STDIO_SANDBOX_DIR: z.string().optional(),
  /**
   * Extra read-only paths for sandboxed servers, separated by ':' (node's prefix and the node_modules
   * directories above the worker are always there). A path holding a .env file is refused.
   */
  STDIO_SANDBOX_READONLY_PATHS: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? "")
        .split(":")
        .map((p) => p.trim())
        .filter(Boolean),
    ),
  /**
   * Host loopback ports sandboxes with outbound access may be given (comma-separated), besides those deployment
   * owners name in the console; each installation's admin picks among them. Switchboard's own ports (DATABASE_URL's,
   * REDIS_URL's, BRIDGE_PORT, PORT, 5432, 6379) are ignored here, with a warning.
   */
  STDIO_SANDBOX_LOOPBACK_PORTS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const parsed = parsePortList(v ?? "");
      if ("ports" in parsed) return parsed.ports;
      ctx.addIssue({
        code: "custom",
        message: `STDIO_SANDBOX_LOOPBACK_PORTS: ${parsed.invalid} is not a port (1-65535)`,
      });
      return z.NEVER;
    }),
  /** The gateway's port (the console's and the MCP route's), when it runs on this host: never a sandbox's to reach. */
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Passed on to sandboxed servers (their PATH is the sandbox's own: node's bin directory and the system's). */
  LANG: z.string().optional(),
  /** Host defaults for installations that set no value of their own. */
  STDIO_SANDBOX_OUTBOUND: z.enum(["on", "off"], { error: "STDIO_SANDBOX_OUTBOUND must be on or off" }).default("off"),
  STDIO_SANDBOX_MEMORY_MB: z.coerce.number().int().min(64).max(65_536).default(SANDBOX_DEFAULTS.memoryMb),
  STDIO_SANDBOX_PROCESSES: z.coerce.number().int().min(8).max(4_096).default(SANDBOX_DEFAULTS.processes),
  STDIO_SANDBOX_OPEN_FILES: z.coerce.number().int().min(64).max(65_536).default(SANDBOX_DEFAULTS.openFiles),
  STDIO_SANDBOX_CPU_SECONDS: z.coerce
    .number()
    .int()
    .min(10)
    .max(7 * 24 * 3600)
    .default(SANDBOX_DEFAULTS.cpuSeconds),
  /** Disk quota of an instance's home and /tmp together, and the largest file it may write. */
  STDIO_SANDBOX_DISK_MB: z.coerce.number().int().min(64).max(1_048_576).default(SANDBOX_DEFAULTS.diskMb),
  /** The largest disk quota an admin may give an installation. */
  STDIO_SANDBOX_DISK_MAX_MB: z.coerce.number().int().min(64).max(1_048_576).default(SANDBOX_DISK_MAX_MB),
  /** The seccomp profile (OCI/Docker JSON) compiled at start for every sandbox; `off` for none. */
  STDIO_SANDBOX_SECCOMP_PROFILE: z.string().min(1).default(DEFAULT_SECCOMP_PROFILE),
  ...metricsEnvShape,
  /** The worker's /metrics port on METRICS_HOST (off when unset; see runtime's metrics-server.ts). */
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
});

export type WorkerEnv = z.infer<typeof schema>;

/** Every variable the worker reads (tooling/test/readme-config.test.ts checks the README's table against it). */
export const envSchema = schema;

export function parseWorkerEnv(source: Record<string, string | undefined> = process.env): WorkerEnv {
  return parseEnv(schema, source, "worker");
}
