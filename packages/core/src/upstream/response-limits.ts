import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { LimitError, sizeText } from "../errors/limit";
import { DEFAULT_STDIO_LIMITS, WindowCounter } from "../stdio/limits";

/**
 * What an HTTP upstream may send us: an answer is read into memory, so one body (a JSON answer) or one event of a
 * stream is at most one MCP message's size, the bound stdio servers have too; a stream that never ends may
 * go on, but at a bounded rate. A server answering with hundreds of MiB, an event that never ends or an endless
 * flood costs the call (or the connection), never the process's memory.
 */
export interface ResponseLimits {
  /** A JSON answer, or one event of an event stream. */
  maxMessageBytes: number;
  windowMs: number;
  /** Bytes one event stream may carry within a window. */
  maxStreamBytesPerWindow: number;
}

export const DEFAULT_RESPONSE_LIMITS: ResponseLimits = {
  maxMessageBytes: DEFAULT_STDIO_LIMITS.maxLineBytes,
  windowMs: DEFAULT_STDIO_LIMITS.windowMs,
  maxStreamBytesPerWindow: DEFAULT_STDIO_LIMITS.maxBytesPerWindow,
};

export type ResponseLimitKind = "body_too_large" | "event_too_large" | "stream_flood";

const size = sizeText;

/** One sentence per limit: what the server sent and what was stopped. */
export function responseLimitMessage(
  kind: ResponseLimitKind,
  limits: ResponseLimits = DEFAULT_RESPONSE_LIMITS,
): string {
  switch (kind) {
    case "body_too_large":
      return `The server answered with a body over ${size(limits.maxMessageBytes)}; the answer was dropped.`;
    case "event_too_large":
      return `The server sent an event over ${size(limits.maxMessageBytes)} on its stream; the connection was closed.`;
    case "stream_flood":
      return `The server sent more than ${size(limits.maxStreamBytesPerWindow)} in ${limits.windowMs / 1000} seconds on its stream; the connection was closed.`;
  }
}

/** An HTTP upstream's answer went past a bound: the call (or the connection) fails with this sentence. */
export class ResponseLimitError extends LimitError<ResponseLimitKind> {
  override readonly name = "ResponseLimitError";
  constructor(kind: ResponseLimitKind, limits: ResponseLimits = DEFAULT_RESPONSE_LIMITS) {
    super(kind, responseLimitMessage(kind, limits));
  }
}

const LF = 0x0a;
const CR = 0x0d;

/** The offset just past the last blank line (the end of an event) in `bytes`, or -1. */
function lastEventEnd(bytes: Uint8Array): number {
  for (let i = bytes.length - 1; i >= 1; i--) {
    const b = bytes[i];
    if (b !== LF && b !== CR) continue;
    const prev = bytes[i - 1];
    // "\n\n", "\r\r", or the "\n\r\n" that ends "\r\n\r\n".
    if (prev === b || (b === LF && prev === CR && i >= 2 && bytes[i - 2] === LF)) return i + 1;
  }
  return -1;
}

/**
 * An event stream that errors with a ResponseLimitError (and tells `onLimit`) once one event grows past the
 * message bound or the stream passes its rate. The SDK's transports only report a broken stream through
 * `onerror`, so the caller closes the connection on `onLimit` to fail what waits on it.
 */
export function boundEventStream(
  body: ReadableStream<Uint8Array>,
  limits: ResponseLimits,
  onLimit: (error: ResponseLimitError) => void,
): ReadableStream<Uint8Array> {
  let sinceEventEnd = 0;
  let tail = new Uint8Array(0);
  const rate = new WindowCounter(limits.windowMs);
  const fail = (controller: TransformStreamDefaultController<Uint8Array>, kind: ResponseLimitKind) => {
    const error = new ResponseLimitError(kind, limits);
    controller.error(error);
    onLimit(error);
  };
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (rate.add(chunk.byteLength) > limits.maxStreamBytesPerWindow) return fail(controller, "stream_flood");
        // The last bytes of the previous chunk, so a blank line split across two chunks is seen.
        const seen = new Uint8Array(tail.byteLength + chunk.byteLength);
        seen.set(tail);
        seen.set(chunk, tail.byteLength);
        const end = lastEventEnd(seen);
        sinceEventEnd = end === -1 ? sinceEventEnd + chunk.byteLength : seen.byteLength - end;
        if (sinceEventEnd > limits.maxMessageBytes) return fail(controller, "event_too_large");
        tail = seen.subarray(Math.max(0, seen.byteLength - 2));
        controller.enqueue(chunk);
      },
    }),
  );
}

/**
 * A fetch whose event-stream answers are bounded (`boundEventStream`); other answers pass as they are (their
 * bodies are bounded where they are read: `nodeRequest`).
 */
export function withBoundedEventStreams(
  base: FetchLike,
  onLimit: (error: ResponseLimitError) => void,
  limits: ResponseLimits = DEFAULT_RESPONSE_LIMITS,
): FetchLike {
  return async (input, init) => {
    const response = await base(input, init);
    // The content type first: asking a whole answer (nodeFetch's) for its body makes a stream of it.
    if (!(response.headers.get("content-type") ?? "").includes("text/event-stream") || !response.body) return response;
    return new Response(boundEventStream(response.body, limits, onLimit), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
