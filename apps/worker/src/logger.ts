import pino, { type Logger } from "pino";
import { LOG_REDACT_PATHS, redactingDestination, SecretRegistry } from "@switchboard/core/config";

export type { Logger };

/**
 * The worker's logger. Known secret fields are cut by pino's `redact` paths; every line is then written
 * through `secrets` (the upstream secrets this process has loaded, see InstanceSecrets), so an upstream's error
 * message, a stack or a stderr line that carries a secret value leaves without it.
 */
export function createLogger(level: string, secrets: SecretRegistry = new SecretRegistry()): Logger {
  return pino(
    {
      name: "worker",
      level,
      redact: { paths: [...LOG_REDACT_PATHS], censor: "[redacted]" },
    },
    redactingDestination(secrets, (line) => void process.stdout.write(line)),
  );
}
