import pino, { type Logger } from "pino";
import { LOG_REDACT_PATHS, redactingDestination, SecretRegistry } from "@switchboard/core/config";
import { logLevel } from "./env";

export type { Logger };

/**
 * A process's logger. Known secret fields are cut by pino's `redact` paths; every line is then written through
 * `secrets` (the upstream secrets this process has loaded), so an upstream's error message, a stack or a stderr
 * line that carries a secret value leaves without it.
 */
export function createLogger(name: string, level: string, secrets: SecretRegistry = new SecretRegistry()): Logger {
  return pino(
    {
      name,
      level,
      redact: { paths: [...LOG_REDACT_PATHS], censor: "[redacted]" },
    },
    redactingDestination(secrets, (line) => void process.stdout.write(line)),
  );
}

/**
 * The upstream secrets this process has seen (by instance; filled as the request log and the route load them).
 * Used by the gateway's and the console's logger below; the worker creates its own with `createLogger`.
 */
export const logSecrets = new SecretRegistry();

/** The gateway's and the console's logger (created at import, before env() is parsed: `logLevel()` reads one variable). */
export const logger = createLogger("web", logLevel(), logSecrets);
