/**
 * Every Redis key and pub/sub channel that more than one module (or process) uses, under the deployment's
 * REDIS_PREFIX: the worker writes what the gateway processes read, so both spell names from here. Plain strings:
 * core knows nothing about the Redis client. BullMQ keeps its own keys under the same prefix.
 */
const name = (prefix: string, ...parts: string[]) => [prefix, ...parts].join(":");

/** A member of a team, as the MCP session keys are grouped. */
export interface McpMember {
  teamId: string;
  userId: string;
}
/** Redis Cluster hashes only the part in braces: every key of one member's MCP sessions lands in one slot. */
const memberTag = (m: McpMember) => `{${m.teamId}.${m.userId}}`;
/**
 * The workers' coordination keys (heartbeats, stdio leases, each worker's set of leases) share one hash tag: a
 * lease is taken together with its holder's set, and a sweep reads the heartbeats and a gone worker's set in one
 * script, so on Redis Cluster they must sit in one slot. They are few and small (one lease per running stdio
 * instance), so one slot holds them easily.
 */
const WORKERS_TAG = "{workers}";

export const redisKeys = {
  /** Pattern (KEYS / SCAN) matching everything under the prefix: tests clean up their own prefix with it. */
  everything: (prefix: string) => name(prefix, "*"),
  /** An instance's stdio lease: which worker hosts it; value JSON `StdioLease` (see ./bridge). */
  stdioLease: (prefix: string, instanceId: string) => name(prefix, WORKERS_TAG, "lease", "stdio", instanceId),
  /** One job at a time per instance across workers (token + TTL). */
  instanceLock: (prefix: string, instanceId: string) => name(prefix, "lock", "instance", instanceId),
  /**
   * Every worker's heartbeat: a sorted set of worker ids scored by the (Redis clock) time their heartbeat runs
   * out. A score in the past is a worker that stopped without saying goodbye (see ./workers).
   */
  workersAlive: (prefix: string) => name(prefix, WORKERS_TAG, "alive"),
  /** The instances whose stdio lease one worker holds (a set): what to take back when that worker is gone. */
  workerLeases: (prefix: string, workerId: string) => name(prefix, WORKERS_TAG, "leases", workerId),
  /** One sweep of lost workers at a time, whichever gateway process gets it (token + TTL). */
  workerSweepLock: (prefix: string) => name(prefix, "workers", "sweep-lock"),
  /** Set once a worker reconciled Redis with PostgreSQL; its absence after a reconnect means Redis lost data. */
  workerReconciled: (prefix: string) => name(prefix, "worker", "reconciled"),
  /** How stdio servers run on this deployment: the worker reports it, the console reads it. */
  sandboxStatus: (prefix: string) => name(prefix, "switchboard", "stdio-sandbox"),
  /** A rate-limit window of the account endpoints. */
  authRate: (prefix: string, key: string) => name(prefix, "auth-rate", key),
  /** Set while an ID-JAG assertion (by the SHA-256 of its issuer and jti) may not be used again: until it expires. */
  idJagAssertionUsed: (prefix: string, assertionHash: string) => name(prefix, "id-jag", "jti", assertionHash),
  /** Set while an address (by its SHA-256) was recently warned of a sign-up attempt: one such mail per window. */
  signupAttemptNotice: (prefix: string, addressHash: string) => name(prefix, "signup-attempt-notice", addressHash),
  /**
   * An MCP session's record, shared by every gateway process. The four MCP session keys carry the member's hash tag:
   * saving a session touches its record, its token's and member's sets and the records and markers of the
   * sessions it closes, all of one member, so on Redis Cluster one script reaches them on one node.
   */
  mcpSession: (prefix: string, member: McpMember, sessionId: string) =>
    name(prefix, "mcp", memberTag(member), "session", sessionId),
  /** Why we closed an MCP session (kept for a while so its client learns it). */
  mcpSessionClosed: (prefix: string, member: McpMember, sessionId: string) =>
    name(prefix, "mcp", memberTag(member), "session-closed", sessionId),
  /** The MCP sessions of one access token (a sorted set, oldest first); a token is one member's. */
  mcpTokenSessions: (prefix: string, member: McpMember, tokenId: string) =>
    name(prefix, "mcp", memberTag(member), "sessions", "token", tokenId),
  /** The MCP sessions of one member of a team (a sorted set, oldest first). */
  mcpMemberSessions: (prefix: string, member: McpMember) => name(prefix, "mcp", memberTag(member), "sessions"),
  /** New MCP sessions one token opened in the current minute (a counter, rate-limiter-flexible's; one key per op). */
  mcpSessionRateToken: (prefix: string, tokenId: string) => name(prefix, "mcp", "session-rate", "token", tokenId),
  /** New MCP sessions one member of a team opened in the current minute, over all their tokens. */
  mcpSessionRateMember: (prefix: string, teamId: string, userId: string) =>
    name(prefix, "mcp", "session-rate", "member", teamId, userId),
  /**
   * One tool-call quota counter (rate-limiter-flexible's; one key per op): a team's limit (by id), the calls it
   * counts (`calls` or `writes`) and the identity counted (governance `quotaCounters`), never an MCP session.
   */
  toolQuota: (prefix: string, quotaId: string, counts: string, identity: readonly string[]) =>
    name(prefix, "mcp", "quota", quotaId, counts, ...identity),
} as const;

export const redisChannels = {
  /** Live events of a team's instances (the console). */
  team: (prefix: string, teamId: string) => name(prefix, "switchboard", "team", teamId),
  /** Live events of one member's instances (that member's MCP sessions). */
  member: (prefix: string, userId: string) => name(prefix, "switchboard", "member", userId),
  /** Pattern (PSUBSCRIBE) matching every team channel. */
  everyTeam: (prefix: string) => name(prefix, "switchboard", "team", "*"),
  /** Pattern (PSUBSCRIBE) matching every member channel. */
  everyMember: (prefix: string) => name(prefix, "switchboard", "member", "*"),
  /** Request-log rows a gateway process just wrote for a team (counts only; `CallsLogged` in core events). */
  teamCalls: (prefix: string, teamId: string) => name(prefix, "switchboard", "calls", teamId),
  /** Pattern (PSUBSCRIBE) matching every team's request-log channel. */
  everyTeamCalls: (prefix: string) => name(prefix, "switchboard", "calls", "*"),
  /** Access that must end at once everywhere: a revoked token, a removed member, a deleted team. */
  auth: (prefix: string) => name(prefix, "switchboard", "auth"),
  /** MCP sessions closed past a limit: every gateway process drops its copy. */
  mcpSessionsClosed: (prefix: string) => name(prefix, "switchboard", "mcp-sessions-closed"),
  /** A client's answer to a server-to-client request, relayed to the gateway process that asked. */
  mcpAnswers: (prefix: string, processId: string) => name(prefix, "switchboard", "mcp-answers", processId),
  /** A 2026 client's retry of a call another gateway process holds for its input, sent to that process. */
  mcpHeldRetries: (prefix: string, processId: string) => name(prefix, "switchboard", "mcp-held-retries", processId),
  /** What a held call answered a retry relayed to its process, sent back to the process the retry reached. */
  mcpHeldReplies: (prefix: string, processId: string) => name(prefix, "switchboard", "mcp-held-replies", processId),
} as const;
