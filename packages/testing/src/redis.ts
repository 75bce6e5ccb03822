import { isCluster, type RedisClient } from "@switchboard/runtime/redis-client";

/**
 * Tests clean up their own Redis namespace with KEYS, which on a Redis Cluster answers for one node only: ask
 * every master there. Never used by the apps (KEYS walks the whole keyspace).
 */
export async function keysMatching(client: RedisClient, pattern: string): Promise<string[]> {
  if (!isCluster(client)) return client.keys(pattern);
  const perNode = await Promise.all(client.nodes("master").map((node) => node.keys(pattern)));
  return perNode.flat();
}

/** Deletes every key matching `pattern`; on a cluster one key at a time (they live in many slots). */
export async function deleteMatching(client: RedisClient, pattern: string): Promise<void> {
  const keys = await keysMatching(client, pattern);
  if (!keys.length) return;
  if (isCluster(client)) await Promise.all(keys.map((key) => client.del(key)));
  else await client.del(...keys);
}
