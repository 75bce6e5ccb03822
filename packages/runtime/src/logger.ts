import pino from "pino";
import { LOG_REDACT_PATHS, redactingDestination, SecretRegistry } from "@switchboard/core/config";

/**
 * The upstream secrets this process has seen (by instance; filled as the request log and the route load them).
 * Every log line is written through them: whatever a log call passed (an upstream's error, a stack) leaves
 * without a secret value in it. Known secret fields are cut by pino's `redact` paths before that.
 */
export const logSecrets = new SecretRegistry();

export const logger = pino(
  {
    name: "web",
    level: process.env.LOG_LEVEL ?? "info",
    redact: { paths: [...LOG_REDACT_PATHS], censor: "[redacted]" },
  },
  redactingDestination(logSecrets, (line) => void process.stdout.write(line)),
);
