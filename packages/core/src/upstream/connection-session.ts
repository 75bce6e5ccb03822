import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type {
  ClientCapabilities,
  Implementation,
  LoggingMessageNotification,
  ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { DiscoverResult } from "@modelcontextprotocol/client";
import { hear2025Notifications, type ConnectionListeners } from "./connection-listeners";
import { LazyJsonSchemaValidator } from "./json-schema-validator";
import { Client2026, type SessionClient } from "./client-2026";
import { probeRevision } from "./revision";
import { relayServerRequests, type ServerRequestHandler, type ServerToClientRequest } from "./server-requests";

/** One session of a connection: what a connect opened, until it fails or is dropped. */
export interface Session {
  /** SDK 1.x's `Client` for a 2025 upstream (after `initialize`), a `Client2026` for a 2026-07-28 one. */
  client: SessionClient;
  transport: Transport;
  protocolVersion: string | undefined;
  /** The server answered 404 for this session's id: it no longer knows it. */
  expired?: boolean;
}

/** What initialize told us; kept after a disconnect so discovery and the console can still show it. */
export interface Negotiated {
  capabilities: ServerCapabilities;
  serverVersion: Implementation;
  protocolVersion: string | undefined;
  instructions: string | undefined;
}

/** What a connection gives the session it opens. */
export interface SessionContext {
  clientInfo: Implementation;
  /** What this connect offers the server. */
  capabilities: ClientCapabilities;
  onServerRequest: ServerRequestHandler | undefined;
  requestTimeoutMs: number;
  listeners: ConnectionListeners;
  /** A fresh transport to the same upstream. */
  connector: () => Promise<Transport>;
  /** The session's client closed: the connection lets go of it (if it still holds it). */
  onClose: (session: Session) => void;
}

/**
 * Why a transport ended itself, when it knows (a stdio server that broke a limit: `ProcessTransport.fault`). The
 * SDK fails the requests in flight with a bare "Connection closed"; the caller gets this reason instead.
 */
export function faultOf(transport: Transport): Error | undefined {
  const fault = (transport as { fault?: unknown }).fault;
  return fault instanceof Error ? fault : undefined;
}

/** Whether a request failed because the server no longer knows the session (it answered 404 for its id). */
export function isSessionExpired(error: unknown, session: Session): boolean {
  if (error instanceof StreamableHTTPError) return error.code === 404 && Boolean(session.transport.sessionId);
  // Legacy SSE: the message endpoint answers 404 for a session id it does not know (the server restarted and
  // its stream is gone); the SDK says so only in words.
  return (
    session.transport instanceof SSEClientTransport &&
    error instanceof Error &&
    error.message.startsWith("Error POSTing to endpoint (HTTP 404)")
  );
}

/**
 * Open a session on a fresh transport. What the upstream speaks is asked anew on every connect (a server may have
 * been upgraded, or downgraded), and it is spoken to as it answered. On a failure the transport's own fault, if
 * it has one, is the reason given.
 */
export async function openSession(transport: Transport, context: SessionContext): Promise<Session> {
  let verdict: Awaited<ReturnType<typeof probeRevision>>;
  try {
    verdict = await probeRevision(transport, {
      clientInfo: context.clientInfo,
      capabilities: context.capabilities,
      timeoutMs: context.requestTimeoutMs,
    });
  } catch (error) {
    await transport.close().catch(() => {});
    throw faultOf(transport) ?? error;
  }
  return (
    verdict.kind === "2026"
      ? open2026Session(transport, verdict.discover, context)
      : open2025Session(transport, context)
  ).catch((error: unknown) => Promise.reject(faultOf(transport) ?? error));
}

/** What the connect of `session` negotiated. */
export function negotiatedOf(session: Session): Negotiated {
  return {
    capabilities: session.client.getServerCapabilities() ?? {},
    serverVersion: session.client.getServerVersion() ?? { name: "unknown", version: "unknown" },
    protocolVersion: session.protocolVersion,
    instructions: session.client.getInstructions(),
  };
}

/** A 2026-07-28 upstream: stateless, no session to open; requests carry the revision in their `_meta`. */
async function open2026Session(
  transport: Transport,
  discover: DiscoverResult,
  context: SessionContext,
): Promise<Session> {
  const { onServerRequest, listeners } = context;
  let session: Session | undefined = undefined;
  const client = await Client2026.connect(transport, discover, {
    clientInfo: context.clientInfo,
    capabilities: context.capabilities,
    // An input_required result's embedded requests reach whoever this connection serves, as a 2025 server's
    // own requests do; the SDK then retries the call with the answers and the server's requestState.
    onEmbeddedRequest: onServerRequest
      ? (request, extra) => onServerRequest(request as ServerToClientRequest, { signal: extra.signal })
      : undefined,
    onLoggingMessage: (params) => listeners.emitLogging(params as LoggingMessageNotification["params"]),
    // Everything, as a 2025 server sends without logging/setLevel; the proxy applies each session's own level.
    logLevel: () => (listeners.logging.size > 0 ? "debug" : undefined),
    onClose: () => {
      if (session) context.onClose(session);
    },
    onListChanged: (kind) => listeners.emitListChanged(kind),
    onResourceUpdated: (uri) => listeners.emitResourceUpdated(uri),
    openTransport: () => context.connector(),
  });
  if (listeners.listChanged.size > 0) void client.wantListChanges(true);
  session = { client, transport, protocolVersion: client.getProtocolVersion() };
  return session;
}

/** A 2025 upstream: SDK 1.x's `Client`, after `initialize`. */
async function open2025Session(transport: Transport, context: SessionContext): Promise<Session> {
  const client = new Client(context.clientInfo, {
    capabilities: context.capabilities,
    jsonSchemaValidator: new LazyJsonSchemaValidator(),
  });
  const session: Session = { client, transport, protocolVersion: undefined };
  // The SDK tells the transport the negotiated version; listen in on this instance to keep it.
  const setVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version: string) => {
    session.protocolVersion = version;
    setVersion?.(version);
  };
  hear2025Notifications(client, context.listeners);
  if (context.onServerRequest) relayServerRequests(client, context.capabilities, context.onServerRequest);
  client.onclose = () => context.onClose(session);
  // Errors surface through the failing request; the default handler would only log them.
  client.onerror = () => {};
  await client.connect(transport, { timeout: context.requestTimeoutMs });
  return session;
}
