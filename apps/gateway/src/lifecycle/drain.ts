import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { Server as NetServer, type Socket } from "node:net";
import { endLongLived } from "./streams";

/**
 * Shutting down the public server without failing a call in flight:
 * - the listening socket closes (new connections go to another process), but connections already open stay;
 * - long-lived streams end at once (their clients reconnect elsewhere);
 * - every request still arriving on an open connection is served, with `Connection: close`, and a connection is
 *   closed as soon as its response is complete, so its client's next request opens a connection to another
 *   process; a connection idle for IDLE_CLOSE_MS is closed too (one idle a moment ago may be in use by its client
 *   right now: closing it would race that client's next request, which then fails);
 * - once nothing is open, or when the grace period ends (what is left is cut), it resolves.
 * Closing every idle connection at once (what `server.close()` does since Node 19, and http-terminator and
 * stoppable do) fails a request its client sent on a kept-alive connection just as it was closed.
 */
const IDLE_CLOSE_MS = 1_000;

interface Connection {
  socket: Socket;
  /** Requests on it not yet answered. */
  active: number;
  idleSince: number;
}

export class HttpDrain {
  private readonly connections = new Map<Socket, Connection>();
  private draining = false;
  private wake: (() => void) | undefined;

  constructor(private readonly server: Server) {
    server.on("connection", (socket: Socket) => {
      const c: Connection = { socket, active: 0, idleSince: Date.now() };
      this.connections.set(socket, c);
      socket.once("close", () => {
        this.connections.delete(socket);
        this.wake?.();
      });
    });
    // Before the application's handler: a response written while draining says it is the connection's last.
    server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => this.track(req, res));
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /** Requests being answered now (long-lived streams included until they are ended). */
  get inFlight(): number {
    let n = 0;
    for (const c of this.connections.values()) n += c.active;
    return n;
  }

  private track(req: IncomingMessage, res: ServerResponse): void {
    const c = this.connections.get(req.socket);
    if (!c) return;
    c.active++;
    if (this.draining) res.setHeader("connection", "close");
    let done = false;
    const finished = () => {
      if (done) return;
      done = true;
      c.active--;
      c.idleSince = Date.now();
      // Its answer is complete: the client has it, and learns from the closed connection to go elsewhere.
      if (this.draining && c.active === 0) setImmediate(() => c.socket.destroySoon());
      this.wake?.();
    };
    res.once("finish", finished);
    res.once("close", finished);
  }

  /**
   * Drains for at most `graceMs`: resolves with the requests it had to cut (0 when every one finished in time)
   * and the long-lived streams it ended. The server stops accepting connections at once.
   */
  async drain(graceMs: number): Promise<{ cut: number; streams: number }> {
    this.draining = true;
    // net.Server's close: stops listening without closing idle HTTP connections (http.Server's close would).
    NetServer.prototype.close.call(this.server);
    const streams = endLongLived();
    const deadline = Date.now() + graceMs;
    for (;;) {
      const now = Date.now();
      for (const c of this.connections.values()) {
        if (c.active === 0 && now - c.idleSince >= IDLE_CLOSE_MS) c.socket.destroySoon();
      }
      if (this.connections.size === 0) return { cut: 0, streams };
      if (now >= deadline) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(200, deadline - now));
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
    const cut = this.inFlight;
    for (const c of this.connections.values()) c.socket.destroy();
    return { cut, streams };
  }
}
