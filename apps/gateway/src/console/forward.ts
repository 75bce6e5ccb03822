import http, { type IncomingMessage, type ServerResponse } from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";
import { longLived } from "../lifecycle/streams";

/**
 * Hands a request to the Next server behind this process (on 127.0.0.1) and its answer back, streamed both
 * ways: uploads, server-sent events (live updates) and WebSocket upgrades (development reloads) pass through
 * as they come. The Host header is kept, so Next builds URLs and checks origins as if it faced the client.
 */
export interface Upstream {
  port: number;
}

/**
 * How long a kept-alive connection to Next may sit idle before we close it. Next (Node's server) closes one after
 * 5 s and says so in its `Keep-Alive: timeout=5` header; whoever closes second risks the race where a request is
 * written just as the other side closes, which costs a request with a body (a tRPC mutation) a 502, since it is
 * never sent twice. With an agent timeout set, Node also honours the server's hint minus a second, so we always
 * close first.
 */
export const CONSOLE_IDLE_SOCKET_MS = 4_000;

const agent = new http.Agent({ keepAlive: true, scheduling: "lifo", timeout: CONSOLE_IDLE_SOCKET_MS });

/**
 * The largest request body forwarded to the console. Its largest legitimate bodies (a template with 50 fields,
 * a sign-up) are a few hundred kilobytes; Next and tRPC read a body whole before looking at it, so a 50 MB body
 * used to cost the console ~190 MB of memory. Larger bodies answer 413 here and never reach Next.
 */
export const CONSOLE_MAX_BODY_BYTES = 1024 * 1024;

export interface ForwardOptions {
  /** Bytes of request body forwarded before the request is refused with 413 (CONSOLE_MAX_BODY_BYTES). */
  maxBodyBytes?: number;
}

/** Headers about one connection, not the message: each hop sets its own (RFC 9110, 7.6.1). */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade"]);

/** The fixed hop-by-hop names plus those the message's own Connection header lists. */
function hopByHop(connection: string | string[] | undefined): Set<string> {
  if (!connection) return HOP_BY_HOP;
  const named = String(connection)
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  return named.length === 0 ? HOP_BY_HOP : new Set([...HOP_BY_HOP, ...named]);
}

function forwardedHeaders(req: IncomingMessage): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = {};
  const skip = hopByHop(req.headers.connection);
  for (const [name, value] of Object.entries(req.headers)) if (!skip.has(name)) headers[name] = value;
  const remote = req.socket.remoteAddress ?? "";
  const prior = req.headers["x-forwarded-for"];
  headers["x-forwarded-for"] = prior ? `${String(prior)}, ${remote}` : remote;
  headers["x-forwarded-proto"] ??= "encrypted" in req.socket && req.socket.encrypted ? "https" : "http";
  if (req.headers.host) headers["x-forwarded-host"] ??= req.headers.host;
  return headers;
}

function badGateway(res: ServerResponse, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(502, {
    "content-type": "text/plain; charset=utf-8",
    "x-content-type-options": "nosniff",
    "retry-after": "2",
  });
  res.end(`Switchboard's console is not answering (${message}). It restarts by itself; try again in a moment.\n`);
}

/**
 * 413, then the connection is closed. What the client still sends is read and dropped (never kept), so that it
 * can read the answer rather than fail on a reset; a client that keeps sending long after is cut off.
 */
function payloadTooLarge(req: IncomingMessage, res: ServerResponse, limit: number): void {
  let dropped = 0;
  req.on("data", (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > 8 * limit) req.socket.destroy();
  });
  req.resume();
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const mib = Math.round((limit / (1024 * 1024)) * 10) / 10;
  res.writeHead(413, {
    "content-type": "text/plain; charset=utf-8",
    "x-content-type-options": "nosniff",
    connection: "close",
  });
  res.end(`This request is larger than Switchboard's console accepts (${mib} MiB); send less at once.\n`);
}

function declaredLength(req: IncomingMessage): number | null {
  const value = req.headers["content-length"];
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : null;
}

export function forwardRequest(
  upstream: Upstream,
  req: IncomingMessage,
  res: ServerResponse,
  options: ForwardOptions = {},
): void {
  const limit = options.maxBodyBytes ?? CONSOLE_MAX_BODY_BYTES;
  // Refused before a byte goes to Next when the size is announced; a chunked body is counted as it streams.
  const declared = declaredLength(req);
  if (declared !== null && declared > limit) return payloadTooLarge(req, res, limit);
  const bodiless = (declared === null || declared === 0) && req.headers["transfer-encoding"] === undefined;
  let refused = false;
  let retried = false;

  const open = (): http.ClientRequest => {
    const outgoing = http.request(
      {
        host: "127.0.0.1",
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: forwardedHeaders(req),
        agent,
      },
      (incoming) => {
        // Transfer-Encoding is framing between Next and us: Node frames the reply for this client (no chunks for
        // an HTTP/1.0 client).
        const skip = new Set([...hopByHop(incoming.headers.connection), "transfer-encoding"]);
        const raw: string[] = [];
        for (let i = 0; i < incoming.rawHeaders.length; i += 2) {
          if (!skip.has(incoming.rawHeaders[i]!.toLowerCase()))
            raw.push(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
        }
        res.writeHead(incoming.statusCode ?? 502, incoming.statusMessage, raw);
        // Server-sent events must reach the browser as they are written, not when a buffer fills.
        const stream = (incoming.headers["content-type"] ?? "").startsWith("text/event-stream");
        if (stream) res.flushHeaders();
        incoming.pipe(res);
        // Live updates: a process shutting down ends them (the browser reconnects, to another process).
        if (stream)
          longLived(res, () => {
            incoming.unpipe(res);
            incoming.destroy();
            res.end();
          });
        incoming.on("error", () => res.destroy());
      },
    );
    outgoing.on("error", (err) => {
      if (refused) return;
      const code = (err as NodeJS.ErrnoException).code;
      // A kept-alive connection Next closed just as we reused it (the request never reached it): a request
      // without a body is sent again once, on a fresh connection, instead of costing the page a script.
      if (
        bodiless &&
        !retried &&
        outgoing.reusedSocket &&
        code === "ECONNRESET" &&
        !res.headersSent &&
        !res.destroyed
      ) {
        retried = true;
        current = open();
        current.end();
        return;
      }
      badGateway(res, code ?? err.message);
    });
    return outgoing;
  };
  let current = open();
  // The browser went away: stop the work behind it (an SSE subscription, a long render).
  res.on("close", () => {
    if (!res.writableFinished) current.destroy();
  });
  if (bodiless) {
    req.resume();
    current.end();
    return;
  }
  // req.pipe(outgoing), counting: backpressure both ways, and the body stops at the limit.
  const outgoing = current;
  let received = 0;
  req.on("data", (chunk: Buffer) => {
    if (refused) return;
    received += chunk.length;
    if (received > limit) {
      refused = true;
      outgoing.destroy();
      payloadTooLarge(req, res, limit);
      return;
    }
    if (!outgoing.write(chunk)) req.pause();
  });
  outgoing.on("drain", () => {
    if (!refused) req.resume();
  });
  req.on("end", () => {
    if (!refused) outgoing.end();
  });
}

/** A WebSocket (or other) upgrade: the raw request head goes to Next, then bytes flow both ways untouched. */
export function forwardUpgrade(upstream: Upstream, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  const target = net.connect(upstream.port, "127.0.0.1", () => {
    const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    target.write(`${lines.join("\r\n")}\r\n\r\n`);
    if (head.length > 0) target.write(head);
    target.pipe(socket);
    socket.pipe(target);
  });
  const end = () => {
    target.destroy();
    socket.destroy();
  };
  target.on("error", end);
  socket.on("error", end);
  target.on("close", end);
  socket.on("close", end);
}
