import type { Logger } from "pino";

/**
 * Errors of one socket or stream that escaped without an `error` listener: they end that connection, and the
 * process's own state is intact. Anything else thrown to the top is a bug whose damage nobody can bound.
 */
const CONNECTION_ERROR_CODES = new Set([
  "EPIPE",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "ERR_STREAM_DESTROYED",
  "ERR_STREAM_WRITE_AFTER_END",
  "ERR_STREAM_PREMATURE_CLOSE",
]);

/** Whether an uncaught exception can be survived (logged, the process goes on) rather than stopped on. */
export function isSurvivable(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" && CONNECTION_ERROR_CODES.has(code);
}

export interface ProcessGuardOptions {
  logger: Pick<Logger, "error" | "fatal">;
  /**
   * The graceful stop for what cannot be survived: release what the process holds (leases, sessions, child
   * process groups), then exit with `exitCode`. It must be safe to call more than once.
   */
  shutdown: (reason: string, exitCode: number) => void;
  /** Survivable errors allowed per minute; past it something is wrong with the process itself, and it stops. */
  maxSurvivedPerMinute?: number;
}

/**
 * The top-level handler of a process other teams share (the gateway, the worker): an unhandled rejection is
 * logged and the process goes on (one request's promise, not the process's state); an uncaught exception of one
 * connection (see `isSurvivable`) is logged and survived, within a rate; any other uncaught exception is logged
 * and the process stops cleanly through `shutdown`, exit code 1, instead of dying where it stood. Returns the
 * function that removes the handlers.
 */
export function installProcessGuard(options: ProcessGuardOptions): () => void {
  const { logger, shutdown } = options;
  const max = options.maxSurvivedPerMinute ?? 100;
  let windowStart = 0;
  let survived = 0;
  const withinRate = () => {
    const now = Date.now();
    if (now - windowStart >= 60_000) {
      windowStart = now;
      survived = 0;
    }
    return ++survived <= max;
  };

  const onException = (error: Error) => {
    if (isSurvivable(error) && withinRate()) {
      logger.error({ err: error }, "uncaught error of one connection; the process goes on");
      return;
    }
    logger.fatal({ err: error }, "uncaught exception; stopping cleanly");
    shutdown("uncaughtException", 1);
  };
  const onRejection = (reason: unknown) => {
    logger.error({ err: reason }, "unhandled promise rejection; the process goes on");
  };
  process.on("uncaughtException", onException);
  process.on("unhandledRejection", onRejection);
  return () => {
    process.off("uncaughtException", onException);
    process.off("unhandledRejection", onRejection);
  };
}
