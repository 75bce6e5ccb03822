import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { Readable } from "node:stream";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { markNotSent } from "../policies/retry-safety";
import { injectTraceContext } from "../telemetry";
import { DEFAULT_RESPONSE_LIMITS, ResponseLimitError } from "./response-limits";

/**
 * The fetch upstream MCP traffic uses: Node's own HTTP client behind the fetch signature the SDK transports
 * expect. On the hosted route's hot path, undici's fetch (WHATWG Request objects, web streams, a transferable
 * body per request) was the largest single cost of a proxied call. A JSON answer is read whole into a
 * Response (at most one message's size: `ResponseLimits`); an event stream is handed over as it arrives.
 *
 * Requests it does not cover (redirects to follow, stream bodies) go to the global fetch: the SDK asks for
 * `redirect: "manual"` and follows same-origin redirects itself.
 */
const agents = {
  "http:": new http.Agent({ keepAlive: true, scheduling: "lifo" }),
  "https:": new https.Agent({ keepAlive: true, scheduling: "lifo" }),
};

export function headerRecord(headers: RequestInit["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  if (headers instanceof Headers) headers.forEach((value, name) => void (out[name] = value));
  else if (Array.isArray(headers)) for (const [name, value] of headers) out[name!.toLowerCase()] = value!;
  else
    for (const [name, value] of Object.entries(headers))
      if (value !== undefined) out[name.toLowerCase()] = String(value);
  return out;
}

const NO_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * One abort listener per signal, whatever the number of requests in flight on it. The SDK hands every request
 * of a connection the same long-lived signal, and the proxy runs many calls at once on one connection: a
 * listener per request (what `http.request({ signal })` adds) trips Node's MaxListeners warning at 11.
 */
const inFlight = new WeakMap<AbortSignal, Set<http.ClientRequest>>();

function abortError(signal: AbortSignal): Error {
  return Object.assign(new DOMException("This operation was aborted", "AbortError"), { cause: signal.reason });
}

/**
 * The requests in flight on `signal`, with the one abort listener that destroys them. A function of its own: the
 * listener's closure must not share a scope with a request, or it keeps the first request of every long-lived
 * signal (a connection's) alive for as long as the signal lives.
 */
function requestsOn(signal: AbortSignal): Set<http.ClientRequest> {
  const existing = inFlight.get(signal);
  if (existing) return existing;
  const requests = new Set<http.ClientRequest>();
  inFlight.set(signal, requests);
  signal.addEventListener(
    "abort",
    () => {
      for (const r of requests) r.destroy(abortError(signal));
      requests.clear();
    },
    { once: true },
  );
  return requests;
}

function cancelWith(signal: AbortSignal, req: http.ClientRequest): void {
  if (signal.aborted) {
    req.destroy(abortError(signal));
    return;
  }
  const requests = requestsOn(signal);
  requests.add(req);
  req.once("close", () => requests.delete(req));
}

/** Fetches that hold no per-signal listener per request (see cancelWith): transports use them without a wrapper. */
const signalSafe = new WeakSet<FetchLike>();

export function markSignalSafe<F extends FetchLike>(fetchImpl: F): F {
  signalSafe.add(fetchImpl);
  return fetchImpl;
}

export function isSignalSafe(fetchImpl: FetchLike): boolean {
  return signalSafe.has(fetchImpl);
}

export const nodeFetch: FetchLike = (input, init = {}) => {
  const url = typeof input === "string" ? new URL(input) : input;
  const agent = agents[url.protocol as keyof typeof agents];
  if (!agent || !isPlainBody(init.body) || (init.redirect !== "manual" && init.redirect !== "error"))
    return withPerRequestSignal(fetch)(url, init);
  return nodeRequest(url, init as RequestInit & { body?: PlainBody }, agent);
};
markSignalSafe(nodeFetch);

export type PlainBody = string | Uint8Array<ArrayBuffer> | null | undefined;

export function isPlainBody(body: unknown): body is PlainBody {
  return body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array;
}

/**
 * One request with Node's HTTP client, answered as a fetch Response; redirects are not followed. `lookup`
 * replaces the DNS lookup of a new connection (the egress check, see egress-fetch.ts).
 */
export function nodeRequest(
  url: URL,
  init: Omit<RequestInit, "body"> & { body?: PlainBody },
  agent: http.Agent,
  lookup?: LookupFunction,
): Promise<Response> {
  return sendOnce(url, init, agent, lookup, IDLE_CLOSED_RESENDS);
}

/**
 * How many times a request is sent again after the server closed the kept-alive connection it was reusing (each
 * time one stale connection of the pool is gone; past this, the error goes up, marked as not sent).
 */
const IDLE_CLOSED_RESENDS = 3;

function sendOnce(
  url: URL,
  init: Omit<RequestInit, "body"> & { body?: PlainBody },
  agent: http.Agent,
  lookup: LookupFunction | undefined,
  resends: number,
): Promise<Response> {
  const body = init.body;
  return new Promise<Response>((resolve, reject) => {
    const headers = headerRecord(init.headers);
    if (body !== undefined && body !== null) headers["content-length"] = String(Buffer.byteLength(body));
    // The request's trace context (an attempt's span, a job's), as W3C headers; nothing without tracing.
    injectTraceContext(headers);
    const req = (url.protocol === "https:" ? https : http).request(
      url,
      { method: init.method ?? "GET", headers, agent, ...(lookup ? { lookup } : {}) },
      (res) => {
        const status = res.statusCode ?? 502;
        const responseHeaders = new Headers();
        for (let i = 0; i < res.rawHeaders.length; i += 2)
          responseHeaders.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        const meta = { status, statusText: res.statusMessage ?? "", headers: responseHeaders };
        if (NO_BODY.has(status) || init.method === "HEAD") {
          res.resume();
          resolve(new Response(null, meta));
          return;
        }
        if ((res.headers["content-type"] ?? "").includes("text/event-stream")) {
          resolve(new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, meta));
          return;
        }
        // The whole answer is held in memory: one message's worth at most, whatever the server means to send.
        const max = DEFAULT_RESPONSE_LIMITS.maxMessageBytes;
        const tooLarge = () => {
          res.destroy();
          reject(new ResponseLimitError("body_too_large"));
        };
        if (Number(res.headers["content-length"] ?? 0) > max) return tooLarge();
        const chunks: Buffer[] = [];
        let received = 0;
        res.on("data", (chunk: Buffer) => {
          received += chunk.byteLength;
          if (received > max) return tooLarge();
          chunks.push(chunk);
        });
        res.on("end", () => {
          const all = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
          resolve(
            new BufferedResponse(new Uint8Array(all.buffer as ArrayBuffer, all.byteOffset, all.byteLength), meta),
          );
        });
        res.on("error", reject);
      },
    );
    // Errors after which the server ran nothing, so a retry is safe (policy retrySafety): before the request was
    // completely written (refused, reset while connecting or writing, aborted first), the server cannot hold a
    // whole request; and a kept-alive connection reset before any answer, which is the server having closed
    // it while idle (the race every HTTP client with keep-alive meets). That one is sent again here at once, as
    // Node's and browsers' own clients do: whatever the request (the answer to an upstream's elicitation, say,
    // which nobody would send again, leaving the upstream waiting and the call to time out).
    let written = false;
    let answered = false;
    req.once("finish", () => void (written = true));
    req.once("response", () => void (answered = true));
    req.on("error", (error: NodeJS.ErrnoException) => {
      const idleClosed = req.reusedSocket && !answered && (error.code === "ECONNRESET" || error.code === "EPIPE");
      if (idleClosed && resends > 0 && !init.signal?.aborted)
        return void sendOnce(url, init, agent, lookup, resends - 1).then(resolve, reject);
      reject(!written || idleClosed ? markNotSent(error) : error);
    });
    if (init.signal) cancelWith(init.signal, req);
    req.end(body ?? undefined);
  });
}

const utf8 = new TextDecoder();

/**
 * An answer read whole, as a fetch Response that reads from the bytes it holds. undici's Response wraps any body
 * in a web stream and reads it back through that stream for `json()` and `text()`: for a small JSON answer, five
 * times the cost of the parse itself, on every upstream answer of the route. The stream is made only when
 * something asks for `body`.
 */
class BufferedResponse extends Response {
  readonly #bytes: Uint8Array<ArrayBuffer>;
  #used = false;
  #stream: ReadableStream<Uint8Array<ArrayBuffer>> | undefined;

  constructor(bytes: Uint8Array<ArrayBuffer>, init: ResponseInit) {
    super(null, init);
    this.#bytes = bytes;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    const take = () => this.#take();
    // Read only when read from (a high-water mark of 0): asking for `body` and cancelling it reads nothing.
    return (this.#stream ??= new ReadableStream<Uint8Array<ArrayBuffer>>(
      {
        pull(controller) {
          controller.enqueue(take());
          controller.close();
        },
      },
      { highWaterMark: 0 },
    ));
  }

  override get bodyUsed(): boolean {
    return this.#used;
  }

  #take(): Uint8Array<ArrayBuffer> {
    if (this.#used) throw new TypeError("Body is unusable: Body has already been read");
    this.#used = true;
    return this.#bytes;
  }

  override async text(): Promise<string> {
    return utf8.decode(this.#take());
  }

  override async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = this.#take();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  }

  override async blob(): Promise<Blob> {
    return new Blob([this.#take()], { type: this.headers.get("content-type") ?? "" });
  }

  override clone(): Response {
    if (this.#used) throw new TypeError("Response.clone: Body has already been consumed.");
    return new BufferedResponse(this.#bytes, {
      status: this.status,
      statusText: this.statusText,
      headers: this.headers,
    });
  }
}

/**
 * The SDK passes one long-lived AbortSignal to every request of a transport, and undici's fetch keeps an abort
 * listener on that signal until the Request is garbage collected: under load thousands pile up (Node warns
 * about a leak) and each abort would walk them all. A dependent signal per request (AbortSignal.any holds its
 * sources weakly) keeps the cancellation and drops the listener with the request.
 */
export function withPerRequestSignal(base: FetchLike): FetchLike {
  return (input, init) =>
    init?.signal ? base(input, { ...init, signal: AbortSignal.any([init.signal]) }) : base(input, init);
}
