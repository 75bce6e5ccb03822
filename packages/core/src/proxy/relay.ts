import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  ErrorCode,
  McpError,
  type LoggingLevel,
  type ProgressToken,
  type RequestId,
  type ServerNotification,
} from "@modelcontextprotocol/sdk/types.js";
import { injectTraceContext } from "../telemetry";
import type { UpstreamClient } from "./types";

/** What a handler has of the downstream request it serves: its signal, id and notification channel. */
export interface DownstreamExtra {
  signal: AbortSignal;
  requestId?: RequestId;
  sendNotification: (notification: ServerNotification) => Promise<void>;
}

/** How long a relayed sampling, elicitation or roots request waits for the client: a person may be answering. */
export const DEFAULT_SERVER_REQUEST_TIMEOUT_MS = 10 * 60_000;

/**
 * An upstream's JSON-RPC error goes to the client as the upstream sent it: same code, message and data (the
 * SDK's McpError prefixes its message with "MCP error <code>: ", which would otherwise be doubled downstream).
 * This is how -32042 (URL elicitation required) and its `data.elicitations` pass through untouched.
 */
export function asRelayedError(error: unknown): unknown {
  if (!(error instanceof McpError)) return error;
  const prefix = `MCP error ${error.code}: `;
  const message = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  return Object.assign(new Error(message), { code: error.code, data: error.data });
}

/** The longest delay a Node timer takes (a longer one fires at once): the SDK's own timer, left to never fire. */
const NEVER_MS = 2 ** 31 - 1;

/**
 * The timeout of one attempt of a forwarded request. Unlike the SDK's own request timeout it can be held: while a
 * request the upstream sent for this call (an elicitation a person answers, sampling a client runs) waits for the
 * client, the call cannot time out; once answered, the full timeout starts again. Upstream progress restarts it
 * too (as the SDK's `resetTimeoutOnProgress`). It stays bounded: each relayed request has its own timeout.
 * On expiry its signal aborts with the SDK's own RequestTimeout error, so the failure is classified the same.
 */
export class CallDeadline {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private holds = 0;
  /** Whether the upstream sent the client a request during this attempt: it reached the upstream. */
  asked = false;

  constructor(readonly timeoutMs: number) {
    this.arm();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Start the full timeout again (upstream progress), unless a relayed request holds it. */
  restart(): void {
    this.arm();
  }

  /** Stop the clock until the returned release is called (once per hold; the last release restarts it). */
  hold(): () => void {
    this.asked = true;
    this.holds++;
    clearTimeout(this.timer);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.arm();
    };
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.holds = Number.POSITIVE_INFINITY;
  }

  private arm(): void {
    clearTimeout(this.timer);
    if (this.holds > 0 || this.controller.signal.aborted) return;
    this.timer = setTimeout(
      () =>
        this.controller.abort(new McpError(ErrorCode.RequestTimeout, "Request timed out", { timeout: this.timeoutMs })),
      this.timeoutMs,
    );
  }
}

/**
 * Options of an upstream request made for a downstream one. With a deadline, it is the request's only timeout
 * (see CallDeadline); with a number, the SDK's timeout. Upstream progress for this request goes to the downstream
 * client under the client's own progress token.
 */
export function requestOptions(
  timeout: CallDeadline | number | undefined,
  extra: DownstreamExtra,
  progressToken?: unknown,
): RequestOptions {
  const deadline = timeout instanceof CallDeadline ? timeout : undefined;
  const options: RequestOptions = deadline
    ? { signal: AbortSignal.any([extra.signal, deadline.signal]), timeout: NEVER_MS }
    : { signal: extra.signal, ...(typeof timeout === "number" ? { timeout } : {}) };
  if (typeof progressToken === "string" || typeof progressToken === "number") {
    const token: ProgressToken = progressToken;
    options.resetTimeoutOnProgress = true;
    options.onprogress = (progress) => {
      deadline?.restart();
      void extra
        .sendNotification({ method: "notifications/progress", params: { ...progress, progressToken: token } })
        .catch(() => {});
    };
  }
  return options;
}

/**
 * A tools/call to send upstream on behalf of a downstream request: the caller's progress token comes off the
 * params (the upstream connection asks with a token of its own) and its progress is relayed under the caller's.
 */
export function relayedCall<P extends { _meta?: Record<string, unknown> }>(
  params: P,
  extra: DownstreamExtra,
  timeout?: CallDeadline | number,
): { params: P; options: RequestOptions } {
  const { _meta, ...rest } = params;
  const { progressToken, ...meta } = _meta ?? {};
  // The upstream continues the trace from the attempt's span, which replaces the client's context (W3C keys,
  // unprefixed, as MCP's trace propagation has them); without a tracer provider the client's goes on as it came.
  injectTraceContext(meta);
  const forwarded = (Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest) as P;
  return { params: forwarded, options: requestOptions(timeout, extra, progressToken) };
}

/**
 * Upstream log messages that arrive while the request runs are sent to the downstream client as related to
 * this request. The upstream connection is the member's own, so nothing leaks to another member; two
 * concurrent calls on one instance both see its messages.
 */
export async function relayLogging<T>(
  client: UpstreamClient,
  extra: DownstreamExtra,
  run: () => Promise<T>,
  accept?: (level: LoggingLevel) => boolean,
): Promise<T> {
  const unsubscribe = client.onLoggingMessage?.((params) => {
    if (accept && !accept(params.level)) return;
    void extra.sendNotification({ method: "notifications/message", params }).catch(() => {});
  });
  try {
    return await run();
  } finally {
    unsubscribe?.();
  }
}
