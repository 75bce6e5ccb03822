import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client";
import { dbEnv } from "./env";

export { Prisma } from "./generated/prisma/client";
export type { PrismaClient } from "./generated/prisma/client";

export type Db = PrismaClient;
/** The client or an interactive transaction: query functions accept either. */
export type DbTx = Omit<PrismaClient, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;

const globalForDb = globalThis as unknown as { __switchboardDb?: PrismaClient };

export function createDb(url: string, poolMax = 10): PrismaClient {
  // Without a connection timeout, a connect attempt that hangs while PostgreSQL restarts (or a host vanishes)
  // waits forever and so does the query behind it; with one it fails, and jobs retry.
  return new PrismaClient({
    adapter: new PrismaPg({ connectionString: url, max: poolMax, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 30_000, keepAlive: true }),
  });
}

/**
 * The process-wide Prisma client, created on first use (never at import: `next build` imports route modules
 * without a database). Kept on globalThis so Next's dev reloads do not open a new pool each time.
 */
export function getDb(): PrismaClient {
  if (!globalForDb.__switchboardDb) {
    const env = dbEnv();
    globalForDb.__switchboardDb = createDb(env.DATABASE_URL, env.DATABASE_POOL_MAX);
  }
  return globalForDb.__switchboardDb;
}

export async function disconnectDb(): Promise<void> {
  const db = globalForDb.__switchboardDb;
  globalForDb.__switchboardDb = undefined;
  await db?.$disconnect();
}
