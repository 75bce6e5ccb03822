import http, { type IncomingMessage, type ServerResponse } from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";

/**
 * Hands a request to the Next server behind this process (on 127.0.0.1) and its answer back, streamed both
 * ways: uploads, server-sent events (live updates) and WebSocket upgrades (development reloads) pass through
 * as they come. The Host header is kept, so Next builds URLs and checks origins as if it faced the client.
 */
export interface Upstream {
  port: number;
}

const agent = new http.Agent({ keepAlive: true, scheduling: "lifo" });

/** Headers about one connection, not the message: each hop sets its own (RFC 9110, 7.6.1). */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade"]);

/** The fixed hop-by-hop names plus those the message's own Connection header lists. */
function hopByHop(connection: string | string[] | undefined): Set<string> {
  if (!connection) return HOP_BY_HOP;
  const named = String(connection).split(",").map((h) => h.trim().toLowerCase()).filter(Boolean);
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
  res.writeHead(502, { "content-type": "text/plain; charset=utf-8", "retry-after": "2" });
  res.end(`Switchboard's console is not answering (${message}). It restarts by itself; try again in a moment.\n`);
}

export function forwardRequest(upstream: Upstream, req: IncomingMessage, res: ServerResponse): void {
  const outgoing = http.request(
    { host: "127.0.0.1", port: upstream.port, method: req.method, path: req.url, headers: forwardedHeaders(req), agent },
    (incoming) => {
      // Transfer-Encoding is framing between Next and us: Node frames the reply for this client (no chunks for an
      // HTTP/1.0 client).
      const skip = new Set([...hopByHop(incoming.headers.connection), "transfer-encoding"]);
      const raw: string[] = [];
      for (let i = 0; i < incoming.rawHeaders.length; i += 2) {
        if (!skip.has(incoming.rawHeaders[i]!.toLowerCase())) raw.push(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
      }
      res.writeHead(incoming.statusCode ?? 502, incoming.statusMessage, raw);
      // Server-sent events must reach the browser as they are written, not when a buffer fills.
      if ((incoming.headers["content-type"] ?? "").startsWith("text/event-stream")) res.flushHeaders();
      incoming.pipe(res);
      incoming.on("error", () => res.destroy());
    },
  );
  outgoing.on("error", (err) => badGateway(res, (err as NodeJS.ErrnoException).code ?? err.message));
  // The browser went away: stop the work behind it (an SSE subscription, a long render).
  res.on("close", () => {
    if (!res.writableFinished) outgoing.destroy();
  });
  req.pipe(outgoing);
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
