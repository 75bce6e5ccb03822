import type { Logger } from "pino";

type Level = "debug" | "info" | "warn" | "error";

/** An argument Better Auth logs, as JSON can hold it: an error by its name, message and code, not its stack. */
function plain(arg: unknown): unknown {
  if (!(arg instanceof Error)) return arg;
  const code = (arg as { code?: unknown }).code;
  return { name: arg.name, message: arg.message, ...(typeof code === "string" ? { code } : {}) };
}

/**
 * Better Auth's own log lines (a SAML response or a state it refused, a misconfiguration) through the console's pino
 * logger: structured like every other line, and out through the same redacting destination (`logSecrets`). Better
 * Auth otherwise prints them with `console`, outside both. Its default level (warn) is kept.
 */
export function betterAuthLogger(logger: Logger) {
  const log = logger.child({ component: "better-auth" });
  return {
    level: "warn" as const,
    log(level: Level, message: string, ...args: unknown[]) {
      log[level](args.length ? { detail: args.map(plain) } : {}, message);
    },
  };
}
