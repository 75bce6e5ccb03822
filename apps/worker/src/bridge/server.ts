import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  ErrorCode,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type ClientCapabilities,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { safeEqual } from "@switchboard/db/crypto";
import type { InstanceConnections } from "../connections";
import type { Logger } from "@switchboard/runtime/logger";
import { createForwardingServer, ServerRequestRelay } from "./forward";
import type { StdioLeases } from "./leases";
import { BRIDGE_HOLDER_HEADER, bridgeInstancePath } from "@switchboard/core/contracts";
import {
  HttpSessionTransport,
  MAX_BODY_BYTES,
  readPost,
  writeSessionRequired,
  type JsonRpcPost,
} from "@switchboard/core/proxy";

/** What a request in flight on a session the bridge ends is answered when no better reason is known. */
export const SESSION_ENDED_MESSAGE = "The server stopped on the worker before it answered; try again.";

/** What a request the worker failed to serve (not the request's fault) is answered, with 503. */
export const BRIDGE_UNAVAILABLE_MESSAGE = "The worker could not serve this server right now; try again in a moment.";

/** Path of an instance on the bridge (core contract; the proxy route and other workers build URLs with it). */
export const bridgePath = bridgeInstancePath;

const PATH = /^\/instances\/([^/]+)\/mcp$/;

function json(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

/**
 * The worker's internal Streamable HTTP endpoint for the stdio servers it hosts: `/instances/<id>/mcp`,
 * bound to a private address, every request authenticated with `Authorization: Bearer <BRIDGE_SECRET>`.
 * The proxy route reaches stdio instances with the same HTTP code path as remote ones. A request for an
 * instance whose lease another worker holds answers 421 with that worker's URL in `BRIDGE_HOLDER_HEADER` (x-switchboard-bridge).
 */
export class StdioBridge {
  private server: HttpServer | undefined;
  private readonly sessions = new Map<string, BridgeSession>();
  private readonly relay = new ServerRequestRelay();
  private readonly sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: {
      secret: string;
      connections: InstanceConnections;
      leases: StdioLeases;
      isStdio: (instanceId: string) => Promise<boolean>;
      logger: Logger;
      /**
       * A session with no request for this long is ended, with its process (the route's connection opens a new
       * one on its next request, as after any 404); 0 keeps sessions until their client ends them.
       */
      idleSessionMs?: number;
    },
  ) {
    // What a hosted stdio server's process asks its client crosses the bridge to the one session it belongs to.
    deps.connections.serverRequests = (processId, request, extra) => {
      const owned = deps.connections.clientProcesses.ownerOf(processId);
      return owned
        ? this.relay.relay(owned.owner, request, extra)
        : Promise.reject(new Error(`unknown stdio process ${processId}`));
    };
    const idleMs = deps.idleSessionMs ?? 0;
    if (idleMs > 0) this.sweeper = setInterval(() => void this.sweepIdle(), Math.max(1_000, idleMs / 4)).unref();
  }

  /**
   * Ends the sessions that had no request in progress and none for the idle period as of `now`: a route process
   * that went away without ending its sessions leaves no process behind. Returns the sessions ended.
   */
  async sweepIdle(now = Date.now()): Promise<string[]> {
    const idleMs = this.deps.idleSessionMs ?? 0;
    if (!(idleMs > 0)) return [];
    const idle = [...this.sessions].filter(([, s]) => s.inflight === 0 && now - s.lastUsed >= idleMs);
    for (const [id] of idle) this.sessions.delete(id);
    await Promise.all(idle.map(([, s]) => end(s, SESSION_ENDED_MESSAGE)));
    return idle.map(([id]) => id);
  }

  async listen(host: string, port: number): Promise<{ host: string; port: number }> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch((err) => {
        this.deps.logger.warn({ err }, "bridge request failed");
        // What failed here is the worker's side (its database, Redis, a process that would not start), not the
        // request: 503 tells the route to treat the instance as offline for now and try again, as it does a
        // gateway in front of a server that is down.
        if (!res.headersSent) json(res, 503, BRIDGE_UNAVAILABLE_MESSAGE, { "retry-after": "1" });
        else res.end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    const address = server.address() as AddressInfo;
    return { host: address.address, port: address.port };
  }

  /** Sessions open on this bridge for an instance (on its main process, or each on a process of its own). */
  sessionCount(instanceId?: string): number {
    return [...this.sessions.values()].filter((s) => instanceId === undefined || s.instanceId === instanceId).length;
  }

  /**
   * Ends the sessions of an instance (its process stopped, faulted, was removed, the lease was lost). A request
   * still in flight on one (a call that came in as the process went, served by its replacement) is answered with
   * `reason` first: closing alone would leave its client waiting for an answer that never comes.
   */
  async closeInstance(instanceId: string, reason = SESSION_ENDED_MESSAGE): Promise<void> {
    const ending = [...this.sessions].filter(([, s]) => s.instanceId === instanceId);
    for (const [id] of ending) this.sessions.delete(id);
    await Promise.all(ending.map(([, s]) => end(s, reason)));
  }

  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => end(s, "The worker is shutting down; try again.")));
    const server = this.server;
    this.server = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const auth = req.headers.authorization ?? "";
    if (!safeEqual(auth, `Bearer ${this.deps.secret}`)) return json(res, 401, "Unauthorized");
    const match = PATH.exec(new URL(req.url ?? "/", "http://bridge").pathname);
    if (!match?.[1]) return json(res, 404, "Not found");
    const instanceId = decodeURIComponent(match[1]);

    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const existing = this.sessions.get(sessionId);
      if (!existing || existing.instanceId !== instanceId) return json(res, 404, "Session not found");
      return this.serve(existing, req, res);
    }
    if (req.method !== "POST") return json(res, 405, "Method not allowed");
    // The bridge serves 2025-11-25 sessions (the worker speaks whatever revision the process speaks behind it): a
    // 2026-07-28 request, such as a connection's server/discover probe, is refused before anything is set up for it.
    if (req.headers["mcp-method"] !== undefined)
      return json(res, 400, "This endpoint serves protocol revision 2025-11-25 sessions: send initialize first");
    if (!(await this.deps.isStdio(instanceId))) return json(res, 404, "Not a hosted stdio instance");
    // The body is read and checked before anything is set up: a refused first POST leaves no session behind.
    const post = await readPost(req, res, BRIDGE_MAX_BODY_BYTES);
    if (!post) return;
    const initialize = post.onlyRequest();
    if (initialize?.method !== "initialize") {
      return writeSessionRequired(res, initialize?.id ?? null);
    }

    const lease = await this.deps.leases.acquire(instanceId);
    if (!lease.mine) return json(res, 421, "Hosted by another worker", { [BRIDGE_HOLDER_HEADER]: lease.url });

    const first = await this.deps.connections.get(instanceId);
    // The session's id names the process of its own it gets when its client can answer the server (see
    // ClientProcesses): the route opens a session per such client session or request, so the process asks one client.
    const id = randomUUID();
    const transport = new HttpSessionTransport({ sessionId: id, onDelete: () => void this.sessions.delete(id) });
    const session: BridgeSession = { instanceId, transport, lastUsed: Date.now(), inflight: 0, pending: new Set() };
    // Its id reaches the route only in the answer to this initialize.
    this.sessions.set(id, session);
    transport.onclose = () => {
      this.sessions.delete(id);
      void this.deps.connections.clientProcesses
        .release(instanceId, id)
        .catch((err: unknown) => this.deps.logger.warn({ err, instanceId }, "stopping a client's process failed"));
    };
    const forClient = (capabilities: ClientCapabilities | undefined) =>
      this.deps.connections.forClient(instanceId, capabilities, id);
    await createForwardingServer(first, forClient, { relay: this.relay, owner: id }).connect(transport);
    trackPending(session);
    await this.serve(session, req, res, post);
  }

  /**
   * A request of a session: counted as in progress (never idle) until its response ends. The session transport
   * is the hosted route's own (core's HttpSessionTransport: plain JSON answers, no web streams), the body read
   * and checked by the route's reader; with tracing on it spans each request, child of the route's attempt
   * (`_meta`, else headers), parent of what goes on to the stdio process (its `_meta.traceparent`).
   */
  private async serve(
    session: BridgeSession,
    req: IncomingMessage,
    res: ServerResponse,
    read?: JsonRpcPost,
  ): Promise<void> {
    session.lastUsed = Date.now();
    if (req.method !== "POST") return session.transport.handle(req, res);
    session.inflight++;
    res.once("close", () => {
      session.inflight--;
      session.lastUsed = Date.now();
    });
    const post = read ?? (await readPost(req, res, BRIDGE_MAX_BODY_BYTES));
    if (post) await session.transport.handle(req, res, post);
  }
}

/**
 * The largest body the bridge reads: the route's own limit for its clients' bodies, with room for what the
 * route adds to a request on its way (`_meta`, trace context).
 */
const BRIDGE_MAX_BODY_BYTES = 4 * MAX_BODY_BYTES;

/** Keeps the ids of the session's requests that have no answer yet (set after the server connected). */
function trackPending(session: BridgeSession): void {
  const { transport, pending } = session;
  const receive = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (isJSONRPCRequest(message)) pending.add(message.id);
    receive?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) pending.delete(message.id!);
    return send(message, options);
  };
}

/** Answers what the session's client still waits for with `reason`, then closes it. */
async function end(session: BridgeSession, reason: string): Promise<void> {
  const ids = [...session.pending];
  session.pending.clear();
  await Promise.all(
    ids.map((id) =>
      session.transport
        .send({ jsonrpc: "2.0", id, error: { code: ErrorCode.InternalError, message: reason } })
        .catch(() => {}),
    ),
  );
  await session.transport.close().catch(() => {});
}

interface BridgeSession {
  instanceId: string;
  transport: HttpSessionTransport;
  lastUsed: number;
  /** POSTs whose response has not ended (a call's SSE stream stays open until its result). */
  inflight: number;
  /** Ids of its requests not answered yet: answered with a reason when the bridge ends the session. */
  pending: Set<RequestId>;
}
