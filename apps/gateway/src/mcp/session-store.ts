import { z } from "zod";
import { redis } from "@switchboard/runtime/redis";
import { redisKeys, type McpMember } from "@switchboard/core/contracts";
import { env } from "@switchboard/runtime/env";

/**
 * What a gateway process needs to serve an MCP session it did not start: who it belongs to and how the client
 * initialized it. Kept in Redis with an inactivity TTL, so requests of one session may land on any gateway process.
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
 * closes the oldest sessions past either limit, atomically. Returns the closed ones.
 *
 * Closing a session deletes its record and writes its marker, and which sessions those are is only known inside
 * the script. A Redis Cluster runs a script only on keys it was given in KEYS (all of one slot: they share the
 * member's hash tag), so the script never builds a key name: the caller passes the keys of the sessions it
 * expects to close (none at first). When the script finds it must close a session it was not given, it writes
 * nothing and names the sessions it needs; the caller calls again with their keys. Only a concurrent save of the
 * same member changes the answer between two calls, so this settles in a call or two.
 *
 * KEYS: the record, the token's set, the member's set, then a record and a marker per session expected to close.
 * ARGV: id, record, ttl, now, per-token limit, per-member limit, marker ttl, then the ids of those sessions.
 */
const SAVE = `
local id, ttl, now = ARGV[1], tonumber(ARGV[3]), tonumber(ARGV[4])
local given = {}
for i = 8, #ARGV do given[ARGV[i]] = 4 + (i - 8) * 2 end
local tokenSet, memberSet = KEYS[2], KEYS[3]
redis.call('ZREMRANGEBYSCORE', tokenSet, '-inf', now - ttl * 1000)
redis.call('ZREMRANGEBYSCORE', memberSet, '-inf', now - ttl * 1000)
-- Which sessions this save closes, before writing anything: the new one is always the newest of both sets.
local function oldest(set, skip, limit)
  local rest = {}
  for _, m in ipairs(redis.call('ZRANGE', set, 0, -1)) do
    if m ~= id and not skip[m] then table.insert(rest, m) end
  end
  local out = {}
  for i = 1, #rest + 1 - limit do out[rest[i]] = true end
  return out
end
local byToken = oldest(tokenSet, {}, tonumber(ARGV[5]))
local byMember = oldest(memberSet, byToken, tonumber(ARGV[6]))
local missing = {}
for _, victims in ipairs({ byToken, byMember }) do
  for v in pairs(victims) do if not given[v] then table.insert(missing, v) end end
end
if #missing > 0 then
  table.insert(missing, 1, 'keys')
  return missing
end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ttl)
local sets = { { tokenSet, tonumber(ARGV[5]), 'token_limit', memberSet }, { memberSet, tonumber(ARGV[6]), 'member_limit', tokenSet } }
for _, s in ipairs(sets) do
  local newest = redis.call('ZREVRANGE', s[1], 0, 0, 'WITHSCORES')
  local score = now
  if newest[2] and tonumber(newest[2]) >= score then score = tonumber(newest[2]) + 1 end
  redis.call('ZADD', s[1], score, id)
  redis.call('EXPIRE', s[1], ttl)
end
local closed = { 'saved' }
for _, s in ipairs(sets) do
  local over = redis.call('ZCARD', s[1]) - s[2]
  if over > 0 then
    local popped = redis.call('ZPOPMIN', s[1], over)
    for i = 1, #popped, 2 do
      local victim = popped[i]
      local record, marker = KEYS[given[victim]], KEYS[given[victim] + 1]
      redis.call('ZREM', s[4], victim)
      -- The marker names the victim's own token (past the member limit it may be another of the member's).
      local owner = ''
      local raw = redis.call('GET', record)
      if raw then
        local ok, decoded = pcall(cjson.decode, raw)
        if ok and type(decoded) == 'table' and type(decoded.tokenId) == 'string' then owner = decoded.tokenId end
      end
      redis.call('DEL', record)
      redis.call('SET', marker, s[3] .. ' ' .. owner, 'EX', tonumber(ARGV[7]))
      table.insert(closed, victim)
      table.insert(closed, s[3])
    end
  end
end
return closed
`;

/** Calls of SAVE before giving up: each retry only follows a concurrent save of the same member. */
const SAVE_ATTEMPTS = 8;

export async function saveSession(
  id: string,
  record: SessionRecord,
  limits: SessionLimits,
): Promise<{ id: string; reason: ClosedReason }[]> {
  const expected = new Set<string>();
  for (let attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
    const victims = [...expected];
    const [status, ...rest] = (await redis().eval(
      SAVE,
      3 + victims.length * 2,
      key(record, id),
      tokenSet(record),
      memberSet(record),
      ...victims.flatMap((v) => [key(record, v), closedKey(record, v)]),
      id,
      JSON.stringify(record),
      limits.idleTtlSeconds,
      Date.now(),
      limits.perToken,
      limits.perMember,
      Math.min(CLOSED_MARKER_TTL_SECONDS, limits.idleTtlSeconds),
      ...victims,
    )) as string[];
    if (status === "keys") {
      for (const v of rest) expected.add(v);
      continue;
    }
    const closed: { id: string; reason: ClosedReason }[] = [];
    for (let i = 0; i < rest.length; i += 2) closed.push({ id: rest[i]!, reason: rest[i + 1] as ClosedReason });
    return closed;
  }
  throw new Error(`MCP session ${id} could not be saved: its member's sessions kept changing`);
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
