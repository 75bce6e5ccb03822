import { randomBytes, randomUUID } from "node:crypto";
import { HttpSessionTransport, relayableCapabilities, type ProxyServer } from "@switchboard/core/proxy";
import { changesCatalogue, staleConnection, type LiveEvent } from "@switchboard/core/events";
import { env } from "@switchboard/runtime/env";
import { logger } from "@switchboard/runtime/logger";
import { invalidateMemberCatalogue } from "./catalogue-cache";
import {
  answersChannel,
  closedSessionsChannel,
  onMemberEvent,
  onRelayedAnswers,
  onSessionsClosed,
  publishToProcess,
} from "@switchboard/runtime/live-events";
import { redis } from "@switchboard/runtime/redis";
import {
  closedReason,
  deleteSession,
  loadSession,
  saveSession,
  touchSession,
  type ClosedReason,
  type SessionLimits,
  type SessionOwner,
  type SessionRecord,
} from "./session-store";
import { createMemberProxy, evictStaleConnection } from "./member-proxy";
import { routeMetrics } from "../metrics";
import { revisionLabel } from "@switchboard/runtime/metrics";

export interface LiveSession {
  id: string;
  record: SessionRecord;
  transport: HttpSessionTransport;
  proxy: ProxyServer;
  lastUsed: number;
  /** When its Redis record's TTL was last refreshed (refreshed at most every `touchEveryMs`, not per request). */
  touchedAt: number;
  close(): Promise<void>;
}

/** A session that existed and was closed by us, with what its client should be told. */
export interface ClosedSession {
  closed: ClosedReason;
  message: string;
}

export function sessionLimits(): SessionLimits {
  const e = env();
  return {
    perToken: e.MCP_MAX_SESSIONS_PER_TOKEN,
    perMember: e.MCP_MAX_SESSIONS_PER_MEMBER,
    idleTtlSeconds: e.MCP_SESSION_IDLE_TTL_SECONDS,
  };
}

/** A session's record is refreshed on use, but at most this often per process: the hot path stays off Redis. */
function touchEveryMs(limits: SessionLimits): number {
  return Math.min(60_000, (limits.idleTtlSeconds * 1000) / 10);
}

function closedMessage(reason: ClosedReason, limits: SessionLimits): string {
  return reason === "token_limit"
    ? `This session was closed because too many sessions were open for this token (at most ${limits.perToken}); start a new session.`
    : `This session was closed because you had too many MCP sessions open in this team (at most ${limits.perMember}); start a new session.`;
}

const IDLE_EVICT_MS = 30 * 60_000;

/**
 * Live sessions one process keeps in memory (an SDK server, a transport and an event subscription each). Some
 * clients open a session per call; past the cap the least recently used are dropped from memory. That loses
 * nothing: the record stays in Redis and the session's next request rebuilds it.
 */
function maxLiveSessions(): number {
  return env().MCP_MAX_LIVE_SESSIONS;
}

interface SessionState {
  live: Map<string, LiveSession>;
  /** This process's name in the ids of its server-to-client requests (`sb.<processId>.<n>`). */
  processId: string;
  /** Listening for answers to them that reached other processes. */
  answers?: Promise<void>;
  sweeper?: NodeJS.Timeout;
  /** Listening for sessions another process closed past a limit. */
  closedListener?: () => void;
}
const state: SessionState = { live: new Map(), processId: randomBytes(9).toString("base64url") };

/** This gateway process's name for the others (in server-to-client request ids and held calls' `requestState`). */
export function gatewayProcessId(): string {
  return state.processId;
}

/**
 * A client may post its answer to a sampling, elicitation or roots request to any gateway process; the one that
 * receives it publishes it to the asking process (named in the request's id), which completes the call it holds.
 */
function listenForAnswers(): Promise<void> {
  state.answers ??= onRelayedAnswers(state.processId, ({ sessionId, message }) => {
    state.live.get(sessionId)?.transport.acceptResponse(message as never);
  }).catch((err: unknown) => {
    state.answers = undefined;
    logger.warn({ err }, "could not listen for answers relayed by other gateway processes");
  });
  return state.answers;
}

function relayAnswer(sessionId: string, message: { id: string }): void {
  const processId = message.id.split(".")[1]!;
  void publishToProcess(answersChannel(processId), JSON.stringify({ sessionId, message })).catch((err: unknown) =>
    logger.warn({ err, sessionId }, "could not relay a client's answer to the gateway process that asked"),
  );
}

function sweep() {
  const now = Date.now();
  for (const s of state.live.values()) {
    // Dropping it from memory loses nothing: the record stays in Redis and the next request rebuilds it.
    if (now - s.lastUsed > IDLE_EVICT_MS) void s.close();
  }
}

async function buildSession(id: string, record: SessionRecord): Promise<LiveSession> {
  const { userId, teamId } = record;
  // A client that can answer sampling, elicitation or roots gets upstream connections of its own that offer
  // exactly that (see SessionUpstreams); everyone else shares the member's connections, which offer nothing.
  const relayable = relayableCapabilities(record.initialize.capabilities as never);
  const { proxy, own, forgetToolset, close } = await createMemberProxy(
    record,
    relayable,
    undefined,
    record.initialize.protocolVersion,
    record.initialize.clientInfo.name,
  );

  const transport = new HttpSessionTransport({
    sessionId: id,
    // The client ended the session: forget it everywhere (closing the transport closes the session below).
    onDelete: () => deleteSession(id, record),
    requestIdPrefix: `sb.${state.processId}.`,
    onForeignResponse: (message) => relayAnswer(id, message),
  });
  if (relayable) await listenForAnswers();
  await proxy.server.connect(transport);

  const unsubscribe = onMemberEvent(userId, (event: LiveEvent) => {
    if (event.teamId !== teamId) return;
    if (staleConnection(event)) {
      // Subscriptions move to the new connection (made now, or when the instance comes back).
      void evictStaleConnection(event.instanceId, own).then(() => proxy.renewSubscriptions(event.instanceId));
    }
    if (changesCatalogue(event)) {
      invalidateMemberCatalogue(userId);
      forgetToolset();
      if (event.type === "status_changed" && (event.payload as { to?: string } | undefined)?.to === "online")
        void proxy.renewSubscriptions(event.instanceId);
      void proxy.notifyCatalogueChanged().catch(() => undefined);
    }
  });

  let closed = false;
  const session: LiveSession = {
    id,
    record,
    transport,
    proxy,
    lastUsed: Date.now(),
    touchedAt: Date.now(),
    async close() {
      if (closed) return;
      closed = true;
      unsubscribe();
      state.live.delete(id);
      await close();
    },
  };
  // A DELETE from the client closes the transport; the session's subscriptions go with it.
  proxy.server.onclose = () => void session.close();
  state.live.set(id, session);
  routeMetrics()?.observeSessions(liveSessionsByRevision);
  state.sweeper ??= setInterval(sweep, 60_000).unref();
  state.closedListener ??= onSessionsClosed((ids) => {
    for (const closedId of ids) void state.live.get(closedId)?.close();
  });
  // The map's order is least recently used first (touch moves a session to the end).
  for (const oldest of state.live.values()) {
    if (state.live.size <= maxLiveSessions()) break;
    state.live.delete(oldest.id);
    void oldest.close();
  }
  return session;
}

/**
 * A new session for an initialize request. Saving it closes the token's or member's oldest sessions past their
 * limits, here and (through Redis) in every other gateway process.
 */
export async function startSession(record: SessionRecord): Promise<LiveSession> {
  const id = randomUUID();
  const session = await buildSession(id, record);
  try {
    const closed = await saveSession(id, record, sessionLimits());
    if (closed.length > 0) {
      for (const c of closed) void state.live.get(c.id)?.close();
      logger.info(
        { tokenId: record.tokenId, userId: record.userId, closed },
        "closed MCP sessions past the session limit",
      );
      void redis()
        .publish(closedSessionsChannel(), JSON.stringify(closed.map((c) => c.id)))
        .catch((err: unknown) =>
          logger.warn({ err }, "could not tell other gateway processes about closed MCP sessions"),
        );
    }
  } catch (err) {
    await session.close();
    throw err;
  }
  return session;
}

/**
 * The session with this id for this token: from this process's memory, or rebuilt from Redis when another web
 * process started it (the stored initialize request is replayed into a fresh transport, so the negotiated
 * protocol version and client capabilities are exactly as on the first process). Null when unknown, expired or
 * when the token is not the one that started it; `closed` when it was closed past a session limit.
 */
export async function findSession(id: string, owner: SessionOwner): Promise<LiveSession | ClosedSession | null> {
  const { tokenId } = owner;
  const limits = sessionLimits();
  const live = state.live.get(id);
  if (live) {
    if (live.record.tokenId !== tokenId) return null;
    if (Date.now() - live.touchedAt < touchEveryMs(limits)) return touch(live);
    // Time to refresh the record; when it is gone (expired, or closed past a limit by another process that
    // has not told us yet) the in-memory copy goes too.
    let current: boolean;
    try {
      current = await touchSession(id, live.record, limits);
    } catch (err) {
      // Redis unreachable: the session in memory keeps serving, as it did before it needed refreshing.
      logger.warn({ err, sessionId: id }, "could not refresh an MCP session's record");
      current = true;
    }
    if (current) {
      live.touchedAt = Date.now();
      return touch(live);
    }
    await live.close();
    const reason = await closedReason(id, owner);
    return reason ? { closed: reason, message: closedMessage(reason, limits) } : null;
  }
  const loaded = await loadSession(id, owner);
  if (!loaded) return null;
  if ("closed" in loaded) return { closed: loaded.closed, message: closedMessage(loaded.closed, limits) };
  const { record } = loaded;
  if (record.tokenId !== tokenId) return null;
  const session = await buildSession(id, record);
  await session.transport.replay({
    jsonrpc: "2.0",
    id: "switchboard-rehydrate",
    method: "initialize",
    params: record.initialize,
  });
  if (!(await touchSession(id, record, limits))) {
    await session.close();
    return null;
  }
  return touch(session);
}

function touch(s: LiveSession): LiveSession {
  s.lastUsed = Date.now();
  if (state.live.get(s.id) === s) {
    state.live.delete(s.id);
    state.live.set(s.id, s);
  }
  return s;
}

/** This process's live sessions by protocol revision (as a metrics label: unknown versions count as `other`). */
function liveSessionsByRevision(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of state.live.values()) {
    const revision = revisionLabel(s.record.initialize.protocolVersion);
    counts.set(revision, (counts.get(revision) ?? 0) + 1);
  }
  return counts;
}

export function liveSessionCount(): number {
  return state.live.size;
}

/** Drops every session from this process's memory (Redis keeps them): what another gateway process sees. */
export async function forgetLocalSessions(): Promise<void> {
  await Promise.all([...state.live.values()].map((s) => s.close()));
}
