import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient, type Prisma } from "./generated/prisma/client";
import { dbEnv } from "./env";

export { Prisma } from "./generated/prisma/client";
export type { PrismaClient } from "./generated/prisma/client";
/** A value a JSON column holds, as it is read back. */
export type JsonValue = Prisma.JsonValue;

export type Db = PrismaClient;
/** The client or an interactive transaction: query functions accept either. */
export type DbTx = Omit<PrismaClient, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;
/** What a query needing several statements atomically takes: a client that opens an interactive transaction. */
export type Tx = { $transaction: <T>(fn: (tx: DbTx) => Promise<T>) => Promise<T> };

const globalForDb = globalThis as unknown as { __switchboardDb?: PrismaClient; __switchboardBulk?: pg.Pool };

export function createDb(url: string, poolMax = 10): PrismaClient {
  // Without a connection timeout, a connect attempt that hangs while PostgreSQL restarts (or a host vanishes)
  // waits forever and so does the query behind it; with one it fails, and jobs retry.
  return new PrismaClient({
    adapter: new PrismaPg({
      connectionString: url,
      max: poolMax,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
    }),
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

/**
 * A small pool of plain `pg` connections for bulk writes on hot paths (the hosted route's request log): one
 * batched INSERT through Prisma cost about seven times the CPU of the same statement sent with `pg`
 * (7.2 against 1.0 ms for 150 rows), and that CPU is taken from the proxied calls.
 */
export function getBulkPool(): pg.Pool {
  if (!globalForDb.__switchboardBulk) {
    const pool = new pg.Pool({
      connectionString: dbEnv().DATABASE_URL,
      max: 2,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 30_000,
      allowExitOnIdle: true,
    });
    // An idle connection that PostgreSQL drops (a restart, a failover) is emitted here; unheard, the event would
    // end the process (`npm run chaos` saw every gateway process exit on a restart). The pool has already discarded the
    // connection and opens a new one for the next query, which fails on its own if the server is still away.
    pool.on("error", () => {});
    globalForDb.__switchboardBulk = pool;
  }
  return globalForDb.__switchboardBulk;
}

export async function closeBulkPool(): Promise<void> {
  const pool = globalForDb.__switchboardBulk;
  globalForDb.__switchboardBulk = undefined;
  await pool?.end();
}
