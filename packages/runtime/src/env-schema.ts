import { WORKER_HEARTBEAT } from "@switchboard/core/contracts";
import { egressEnvShape } from "@switchboard/core/egress";
import { z } from "zod";

/**
 * What every process (gateway, console, worker) reads the same way: the database, Redis and its namespace, the
 * encryption key, egress rules and the log level. Each process's `env.ts` spreads this into its own schema and
 * parses it once with `parseEnv`.
 */
export const commonEnvShape = {
  NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
  DATABASE_URL: z
    .string({ error: "DATABASE_URL is not set (e.g. postgresql://postgres@127.0.0.1:5432/switchboard)" })
    .regex(/^postgres(ql)?:\/\//, "DATABASE_URL must be a postgresql:// URL"),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "REDIS_URL must be a redis:// URL")
    .default("redis://127.0.0.1:6379"),
  /** BullMQ key prefix and pub/sub channel prefix: the same value in every process of one deployment. */
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, "REDIS_PREFIX may contain letters, digits, '-' and '_'")
    .default("sb"),
  /** The same value in every process: the console encrypts secret config values with it, the worker decrypts them. */
  SWITCHBOARD_ENCRYPTION_KEY: z.string({
    error: "SWITCHBOARD_ENCRYPTION_KEY is not set (generate one with `openssl rand -base64 32`)",
  }),
  ...egressEnvShape,
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /**
   * How often a worker renews its heartbeat, and how often the gateway looks for workers whose heartbeat ran out
   * (three missed renewals): the same value in every process. Tests shorten it.
   */
  WORKER_HEARTBEAT_MS: z.coerce.number().int().min(100).max(60_000).default(WORKER_HEARTBEAT.everyMs),
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
