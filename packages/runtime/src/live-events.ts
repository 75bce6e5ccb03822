import { redisChannels } from "@switchboard/core/contracts";
import { callsLoggedSchema, parseLiveEvent, type CallsLogged, type LiveEvent } from "@switchboard/core/events";
import { env } from "./env";
import { logger } from "./logger";
import { redis, subscriberConnection } from "./redis";
import { isCluster } from "./redis-client";

type Listener = (event: LiveEvent) => void;
type CallsListener = (message: CallsLogged) => void;

/**
 * Published by the console when access must end at once in every gateway process: a token (revoked), a member
 * of a team (removed or left), or a whole team (deleted: `teamId` alone).
 */
export interface AuthInvalidation {
  tokenId?: string;
  userId?: string;
  teamId?: string;
}
type AuthListener = (message: AuthInvalidation) => void;

export function authChannel(): string {
  return redisChannels.auth(env().REDIS_PREFIX);
}

/**
 * Published by the console when a member's stored OAuth tokens for an instance changed (authorized again): the
 * gateway drops its cached copy at once instead of sending the old access token until its cache expires.
 */
export function oauthTokensChannel(): string {
  return `${env().REDIS_PREFIX}:switchboard:oauth-tokens`;
}
type OAuthTokensListener = (instanceId: string) => void;

/** MCP sessions closed past a limit: every gateway process drops its in-memory copy at once. */
export function closedSessionsChannel(): string {
  return redisChannels.mcpSessionsClosed(env().REDIS_PREFIX);
}
type ClosedSessionsListener = (sessionIds: string[]) => void;

/**
 * A client's answer to a server-to-client request (sampling, elicitation, roots) that reached a gateway process
 * other than the one that asked: published on the asking process's own channel.
 */
export function answersChannel(processId: string): string {
  return redisChannels.mcpAnswers(env().REDIS_PREFIX, processId);
}
export interface RelayedAnswer {
  sessionId: string;
  message: unknown;
}
type AnswersListener = (answer: RelayedAnswer) => void;

// Kept on globalThis for `next dev`: hot reload re-evaluates this module in the console, and a second hub
// would subscribe again and deliver every event twice. One of the four (see CONTRIBUTING).
const g = globalThis as unknown as {
  __sbLive?: {
    members: Map<string, Set<Listener>>;
    teams: Map<string, Set<Listener>>;
    teamCalls: Map<string, Set<CallsListener>>;
    auth: Set<AuthListener>;
    oauthTokens: Set<OAuthTokensListener>;
    closedSessions: Set<ClosedSessionsListener>;
    answers: Map<string, AnswersListener>;
    /** Channels of this process alone (`onProcessChannel`): each message goes, parsed, to its one listener. */
    own?: Map<string, (message: unknown) => void>;
    ready: Promise<void>;
  };
};

function hub() {
  if (!g.__sbLive) {
    const members = new Map<string, Set<Listener>>();
    const teams = new Map<string, Set<Listener>>();
    const teamCalls = new Map<string, Set<CallsListener>>();
    const auth = new Set<AuthListener>();
    const oauthTokens = new Set<OAuthTokensListener>();
    const closedSessions = new Set<ClosedSessionsListener>();
    const answers = new Map<string, AnswersListener>();
    const prefix = env().REDIS_PREFIX;
    const sub = subscriberConnection();
    // Every process hears every event and routes it to its own listeners: any gateway process can serve any
    // member's MCP session or console tab.
    const memberPattern = redisChannels.everyMember(prefix);
    const teamPattern = redisChannels.everyTeam(prefix);
    const callsPattern = redisChannels.everyTeamCalls(prefix);
    sub.on("pmessage", (pattern: string, _channel: string, message: string) => {
      let json: unknown;
      try {
        json = JSON.parse(message);
      } catch {
        return;
      }
      if (pattern === callsPattern) {
        const calls = callsLoggedSchema.safeParse(json);
        if (!calls.success) return;
        for (const fn of teamCalls.get(calls.data.teamId) ?? []) {
          try {
            fn(calls.data);
          } catch (err) {
            logger.error({ err }, "request log listener failed");
          }
        }
        return;
      }
      const parsed = parseLiveEvent(json);
      if (!parsed.success) {
        logger.warn({ error: String(parsed.error) }, "ignored a malformed live event");
        return;
      }
      const event = parsed.event;
      const set = pattern === memberPattern ? members.get(event.userId) : teams.get(event.teamId);
      for (const fn of set ?? []) {
        try {
          fn(event);
        } catch (err) {
          logger.error({ err }, "live event listener failed");
        }
      }
    });
    const onMessage = (channel: string, message: string) => {
      const mine = g.__sbLive?.own?.get(channel);
      if (mine) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(message);
        } catch {
          return;
        }
        try {
          mine(parsed);
        } catch (err) {
          logger.error({ err, channel }, "process channel listener failed");
        }
        return;
      }
      const answered = answers.get(channel);
      if (answered) {
        try {
          const parsed = JSON.parse(message) as RelayedAnswer;
          if (typeof parsed.sessionId === "string") answered(parsed);
        } catch {
          // ignore malformed messages
        }
        return;
      }
      if (channel === closedSessionsChannel()) {
        try {
          const ids = JSON.parse(message) as unknown;
          if (Array.isArray(ids))
            for (const fn of closedSessions) fn(ids.filter((id): id is string => typeof id === "string"));
        } catch {
          // ignore malformed messages
        }
        return;
      }
      if (channel === oauthTokensChannel()) {
        try {
          const parsed = JSON.parse(message) as { instanceId?: unknown };
          if (typeof parsed.instanceId === "string") for (const fn of oauthTokens) fn(parsed.instanceId);
        } catch {
          // ignore malformed messages
        }
        return;
      }
      if (channel !== authChannel()) return;
      try {
        const parsed = JSON.parse(message) as AuthInvalidation;
        for (const fn of auth) fn(parsed);
      } catch {
        // ignore malformed messages
      }
    };
    sub.on("message", onMessage);
    // A process's own channels, on a Redis Cluster (see `subscribeOwn`).
    sub.on("smessage", onMessage);
    const ready = Promise.all([
      sub.psubscribe(memberPattern, teamPattern, callsPattern),
      sub.subscribe(authChannel(), oauthTokensChannel(), closedSessionsChannel()),
    ]).then(() => undefined);
    g.__sbLive = { members, teams, teamCalls, auth, oauthTokens, closedSessions, answers, ready };
  }
  return g.__sbLive;
}

function add<F>(map: Map<string, Set<F>>, key: string, fn: F): () => void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(fn);
  return () => {
    set.delete(fn);
    if (set.size === 0) map.delete(key);
  };
}

export function onMemberEvent(userId: string, fn: Listener): () => void {
  return add(hub().members, userId, fn);
}

export function onTeamEvent(teamId: string, fn: Listener): () => void {
  return add(hub().teams, teamId, fn);
}

/** A gateway process wrote request-log rows for this team (counts per installation and member). */
export function onTeamCalls(teamId: string, fn: CallsListener): () => void {
  return add(hub().teamCalls, teamId, fn);
}

/**
 * Tells every console tab of these teams that their request logs have new rows. Fire-and-forget like every live
 * event: the rows are in PostgreSQL, a missed message only means the tab refreshes on its fallback poll.
 */
export async function announceCallsLogged(messages: readonly CallsLogged[]): Promise<void> {
  const prefix = env().REDIS_PREFIX;
  try {
    await Promise.all(
      messages.map((m) => redis().publish(redisChannels.teamCalls(prefix, m.teamId), JSON.stringify(m))),
    );
  } catch (err) {
    logger.warn({ err }, "could not announce new request-log rows; console tabs catch up on their next refresh");
  }
}

/** Resolves once this process listens; for tests and for streams that must not miss the first event. */
export function liveEventsReady(): Promise<void> {
  return hub().ready;
}

export function onAuthInvalidation(fn: AuthListener): () => void {
  const { auth } = hub();
  auth.add(fn);
  return () => auth.delete(fn);
}

export function onOAuthTokensChanged(fn: OAuthTokensListener): () => void {
  const { oauthTokens } = hub();
  oauthTokens.add(fn);
  return () => oauthTokens.delete(fn);
}

export function onSessionsClosed(fn: ClosedSessionsListener): () => void {
  const { closedSessions } = hub();
  closedSessions.add(fn);
  return () => closedSessions.delete(fn);
}

/**
 * Channels fall in two kinds. Broadcasts (live events, invalidations, closed sessions) are heard by every process,
 * some through patterns: they use plain pub/sub, which a Redis Cluster forwards to every node, so a subscriber on
 * any node hears them (sharded pub/sub has no patterns). A process's own channels (relayed answers, held calls)
 * have one listener: on a cluster they are sharded (SSUBSCRIBE / SPUBLISH), so a message goes only to the node
 * that owns the channel's slot instead of to every node, and SPUBLISH's count of receivers is the whole count
 * (PUBLISH on a cluster counts only the subscribers of the node it reached, which would make a live process
 * look gone).
 */
function subscribeOwn(channel: string): Promise<unknown> {
  const sub = subscriberConnection();
  return isCluster(sub) ? sub.ssubscribe(channel) : sub.subscribe(channel);
}

/** Sends to a process's own channel (see `subscribeOwn`); resolves to how many processes listen there. */
export async function publishToProcess(channel: string, message: string): Promise<number> {
  const client = redis();
  return Number(isCluster(client) ? await client.spublish(channel, message) : await client.publish(channel, message));
}

/** Listen for answers other processes received for this process's server-to-client requests. */
export async function onRelayedAnswers(processId: string, fn: AnswersListener): Promise<void> {
  const { answers } = hub();
  const channel = answersChannel(processId);
  answers.set(channel, fn);
  await subscribeOwn(channel);
}

/**
 * Listen on a channel addressed to this process alone (its listener validates what it gets: anything may publish
 * there). Resolves once subscribed, so the process can name the channel to others only when it listens.
 */
export async function onProcessChannel(channel: string, fn: (message: unknown) => void): Promise<void> {
  const live = hub();
  live.own ??= new Map();
  live.own.set(channel, fn);
  await subscribeOwn(channel);
}
