import { z } from "zod";
import { redis } from "@switchboard/runtime/redis";
import { redisKeys, type McpMember } from "@switchboard/core/contracts";
import { env } from "@switchboard/runtime/env";

/**
 * What a web process needs to serve an MCP session it did not start: who it belongs to and how the client
 * initialized it. Kept in Redis with an inactivity TTL, so requests of one session may land on any web process.
 *
 * Each token and each member also has a sorted set of their sessions (score: last refresh), which bounds how
 * many they hold: past the limit the oldest are closed, and a marker says why, so that the evicted session's
 * client hears it on its next request instead of a bare "not found". A marker is written only when a session is
 * closed, and lives a few minutes (CLOSED_MARKER_TTL_SECONDS): with the rate at which sessions may be opened
 * (./session-rate) that bounds how many can exist. A client that comes back later gets the plain 404 and starts
 * a new session, as it would anyway.
 */
export const sessionRecord = z.object({
  tokenId: z.string(),
  userId: z.string(),
  teamId: z.string(),
  mode: z.enum(["all", "router"]),
  scope: z.string().nullable(),
  /** The toolset served (`/api/mcp/sets/{name}`, or the token's limit), by id; absent in records written before toolsets. */
  toolset: z.string().nullable().optional(),
  initialize: z.object({
    protocolVersion: z.string(),
    capabilities: z.record(z.string(), z.unknown()),
    clientInfo: z.object({ name: z.string(), version: z.string() }).passthrough(),
  }),
});
export type SessionRecord = z.infer<typeof sessionRecord>;

export interface SessionLimits {
  perToken: number;
  perMember: number;
  idleTtlSeconds: number;
}

/** How long the marker of a session closed past a limit is kept (at most the idle TTL). */
export const CLOSED_MARKER_TTL_SECONDS = 300;

/** Why a session that once existed was closed by us. */
export type ClosedReason = "token_limit" | "member_limit";

/** Whose session: every key of a session is under its member's hash tag, so each is found through them. */
export type SessionOwner = Pick<SessionRecord, "tokenId" | "teamId" | "userId">;

const prefix = () => env().REDIS_PREFIX;
const key = (owner: McpMember, id: string) => redisKeys.mcpSession(prefix(), owner, id);
const closedKey = (owner: McpMember, id: string) => redisKeys.mcpSessionClosed(prefix(), owner, id);
const tokenSet = (r: SessionOwner) => redisKeys.mcpTokenSessions(prefix(), r, r.tokenId);
const memberSet = (r: McpMember) => redisKeys.mcpMemberSessions(prefix(), r);

/**
 * Saves the record, adds it to its token's and member's sets (dropping members whose records expired) and
 * closes the oldest sessions past either limit, atomically. Returns the closed ones. The closed sessions' records
 * and markers are named from ARGV[7] and ARGV[8] (the member's key prefixes): the same member, so the same hash
 * slot as KEYS on Redis Cluster.
 */
const SAVE = `
local id, ttl, now = ARGV[1], tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('SET', KEYS[1], ARGV[2], 'EX', ttl)
local sets = { { KEYS[2], tonumber(ARGV[5]), 'token_limit', KEYS[3] }, { KEYS[3], tonumber(ARGV[6]), 'member_limit', KEYS[2] } }
for _, s in ipairs(sets) do
  redis.call('ZREMRANGEBYSCORE', s[1], '-inf', now - ttl * 1000)
  local newest = redis.call('ZREVRANGE', s[1], 0, 0, 'WITHSCORES')
  local score = now
  if newest[2] and tonumber(newest[2]) >= score then score = tonumber(newest[2]) + 1 end
  redis.call('ZADD', s[1], score, id)
  redis.call('EXPIRE', s[1], ttl)
end
local closed = {}
for _, s in ipairs(sets) do
  local over = redis.call('ZCARD', s[1]) - s[2]
  if over > 0 then
    local popped = redis.call('ZPOPMIN', s[1], over)
    for i = 1, #popped, 2 do
      local victim = popped[i]
      redis.call('ZREM', s[4], victim)
      -- The marker names the victim's own token (past the member limit it may be another of the member's).
      local owner = ''
      local raw = redis.call('GET', ARGV[7] .. victim)
      if raw then
        local ok, decoded = pcall(cjson.decode, raw)
        if ok and type(decoded) == 'table' and type(decoded.tokenId) == 'string' then owner = decoded.tokenId end
      end
      redis.call('DEL', ARGV[7] .. victim)
      redis.call('SET', ARGV[8] .. victim, s[3] .. ' ' .. owner, 'EX', tonumber(ARGV[9]))
      table.insert(closed, victim)
      table.insert(closed, s[3])
    end
  end
end
return closed
`;

export async function saveSession(
  id: string,
  record: SessionRecord,
  limits: SessionLimits,
): Promise<{ id: string; reason: ClosedReason }[]> {
  const result = (await redis().eval(
    SAVE,
    3,
    key(record, id),
    tokenSet(record),
    memberSet(record),
    id,
    JSON.stringify(record),
    limits.idleTtlSeconds,
    Date.now(),
    limits.perToken,
    limits.perMember,
    key(record, ""),
    closedKey(record, ""),
    Math.min(CLOSED_MARKER_TTL_SECONDS, limits.idleTtlSeconds),
  )) as string[];
  const closed: { id: string; reason: ClosedReason }[] = [];
  for (let i = 0; i < result.length; i += 2) closed.push({ id: result[i]!, reason: result[i + 1] as ClosedReason });
  return closed;
}

export type Loaded = { record: SessionRecord } | { closed: ClosedReason } | null;

/** The marker holds the reason and the token, so only the session's own token hears why it was closed. */
function parseClosed(marker: string | null, tokenId: string): ClosedReason | null {
  if (!marker) return null;
  const [reason, owner] = marker.split(" ");
  return owner === tokenId && (reason === "token_limit" || reason === "member_limit") ? reason : null;
}

export async function loadSession(id: string, owner: SessionOwner): Promise<Loaded> {
  const [raw, closed] = await redis().mget(key(owner, id), closedKey(owner, id));
  if (!raw) {
    const reason = parseClosed(closed ?? null, owner.tokenId);
    return reason ? { closed: reason } : null;
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return null;
  }
  const parsed = sessionRecord.safeParse(json);
  return parsed.success ? { record: parsed.data } : null;
}

/** Why a session is gone, when we closed it; null when it expired or never existed. */
export async function closedReason(id: string, owner: SessionOwner): Promise<ClosedReason | null> {
  return parseClosed(await redis().get(closedKey(owner, id)), owner.tokenId);
}

/**
 * Marks a session as used: its record and sets live another TTL and its score moves up. False when the record is
 * gone (expired, closed past a limit, deleted), so the caller stops serving it.
 */
export async function touchSession(id: string, record: SessionRecord, limits: SessionLimits): Promise<boolean> {
  const now = Date.now();
  const ttl = limits.idleTtlSeconds;
  const results = await redis()
    .multi()
    .expire(key(record, id), ttl)
    .zadd(tokenSet(record), "XX", now, id)
    .zadd(memberSet(record), "XX", now, id)
    .expire(tokenSet(record), ttl)
    .expire(memberSet(record), ttl)
    .exec();
  return results?.[0]?.[1] === 1;
}

export async function deleteSession(id: string, record: SessionRecord): Promise<void> {
  await redis().multi().del(key(record, id)).zrem(tokenSet(record), id).zrem(memberSet(record), id).exec();
}
