import pino, { type Logger } from "pino";

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    name: "worker",
    level,
    redact: {
      paths: ["*.password", "*.token", "*.secret", "*.authorization", "headers.authorization", "*.headers", "*.env"],
      censor: "[redacted]",
    },
  });
}
