import type { StdioLimitKind } from "./limits";
import { NO_WORKER_MESSAGE, WORKER_HANDOVER_MESSAGE, WORKER_NOT_ANSWERING_MESSAGE } from "../status/worker-loss";

/** What the supervisor reports; the worker maps these to instance statuses and console lines. */
export type SupervisorEvent =
  | { type: "started"; instanceId: string; pid: number }
  | {
      type: "crashed";
      instanceId: string;
      exitCode: number | null;
      signal: string | null;
      crashesInWindow: number;
      stderrTail: string;
      /** False when this crash made the instance permanently failed. */
      willRestart: boolean;
    }
  | { type: "permanently_failed"; instanceId: string; crashesInWindow: number; stderrTail: string }
  /** The server broke a limit (what it wrote, or its input left unread): stopped, not restarted by itself. */
  | {
      type: "faulted";
      instanceId: string;
      limit: StdioLimitKind;
      /** One sentence naming the limit (StdioLimitError's message). */
      message: string;
      stderrTail: string;
    }
  | { type: "idle_stopped"; instanceId: string }
  | { type: "stopped"; instanceId: string };

export type SupervisorEventType = SupervisorEvent["type"];

/** A connect to an instance that crashed too often; only `restart()` lifts it. */
export class PermanentlyFailedError extends Error {
  override readonly name = "PermanentlyFailedError";
  constructor(readonly instanceId: string) {
    super(`stdio server of instance ${instanceId} crashed too often and is not restarted until an explicit restart`);
  }
}

/**
 * No worker is alive to run a stdio server (none has a current heartbeat): the route knows it without trying, so
 * it answers at once with this sentence instead of retrying a socket that nobody listens on.
 */
export class WorkerUnavailableError extends Error {
  override readonly name = "WorkerUnavailableError";
  constructor(message: string = NO_WORKER_MESSAGE) {
    super(message);
  }
}

/**
 * A worker's bridge refused a connection to an instance because its lease names a worker at the very address the
 * request went to: the worker that held it there stopped without handing it over (a restart in its place), and
 * the lease runs out within seconds. Nothing reached the server.
 */
export class WorkerHandoverError extends Error {
  override readonly name = "WorkerHandoverError";
  constructor() {
    super(WORKER_HANDOVER_MESSAGE);
  }
}

/**
 * A worker's bridge could not be reached or dropped the connection before answering (the worker died and its
 * heartbeat has not run out yet). Its message is one sentence; the transport's error stays its `cause` and its
 * `code` stays, so classification (offline, retryable) and retry safety read what they read before.
 */
export class WorkerNotAnsweringError extends Error {
  override readonly name = "WorkerNotAnsweringError";
  readonly code: string | undefined;
  constructor(cause: unknown) {
    super(WORKER_NOT_ANSWERING_MESSAGE, { cause });
    const code = (cause as { code?: unknown } | null)?.code;
    this.code = typeof code === "string" ? code : undefined;
  }
}
