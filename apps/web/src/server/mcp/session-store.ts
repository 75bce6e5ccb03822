import { z } from "zod";
import { redis, redisKey } from "./redis";

/**
 * What a web process needs to serve an MCP session it did not start: who it belongs to and how the client
 * initialized it. Kept in Redis (sliding 24 h), so requests of one session may land on any web process.
 */
export const sessionRecord = z.object({
  tokenId: z.string(),
  userId: z.string(),
  teamId: z.string(),
  mode: z.enum(["all", "router"]),
  scope: z.string().nullable(),
  initialize: z.object({ protocolVersion: z.string(), capabilities: z.record(z.string(), z.unknown()), clientInfo: z.object({ name: z.string(), version: z.string() }).passthrough() }),
});
export type SessionRecord = z.infer<typeof sessionRecord>;

const TTL_SECONDS = 24 * 3600;
const key = (id: string) => redisKey("mcp", "session", id);

export async function saveSession(id: string, record: SessionRecord): Promise<void> {
  await redis().set(key(id), JSON.stringify(record), "EX", TTL_SECONDS);
}

export async function loadSession(id: string): Promise<SessionRecord | null> {
  const raw = await redis().get(key(id));
  if (!raw) return null;
  const parsed = sessionRecord.safeParse(JSON.parse(raw));
  if (!parsed.success) return null;
  void redis().expire(key(id), TTL_SECONDS);
  return parsed.data;
}

export async function deleteSession(id: string): Promise<void> {
  await redis().del(key(id));
}
