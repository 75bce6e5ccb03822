/**
 * Prisma CLI configuration. The CLI runs its schema engine as WebAssembly through the pg driver adapter, so no
 * native engine is ever downloaded (CONTRIBUTING, below the commands). Everything in here affects the CLI
 * process only; the runtime client in packages/db is configured separately.
 */
import "dotenv/config";
import path from "node:path";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { defineConfig } from "prisma/config";

process.env.CHECKPOINT_DISABLE ??= "1";
// `prisma generate` only stays offline when the datasource URL variable is set; its value is not used there.
process.env.DATABASE_URL ??= "postgresql://postgres@127.0.0.1:5432/switchboard";

// The adapter cannot map the catalog types `name` (19) and `"char"` (18) that migrate reads from pg_catalog
// (prisma/orm#27403). Both are plain text on the wire, so report them as `text` (25).
const CATALOG_TEXT_TYPES = new Set([18, 19]);
const originalQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
function remapCatalogTypes(res: pg.QueryResult | undefined) {
  for (const field of res?.fields ?? []) {
    if (CATALOG_TEXT_TYPES.has(field.dataTypeID)) field.dataTypeID = 25;
  }
  return res;
}
pg.Client.prototype.query = function patchedQuery(this: pg.Client, ...args: unknown[]) {
  // pg.Pool#query calls Client#query with a callback; the adapter's transactions use the promise form.
  const last = args.at(-1);
  if (typeof last === "function") {
    args[args.length - 1] = (err: Error | null, res: pg.QueryResult) => last(err, remapCatalogTypes(res));
    return originalQuery.apply(this, args);
  }
  const result = originalQuery.apply(this, args);
  if (result && typeof (result as Promise<unknown>).then === "function") {
    return (result as Promise<pg.QueryResult>).then(remapCatalogTypes);
  }
  return result;
} as typeof pg.Client.prototype.query;

// The WebAssembly engine leaves long timers behind, which keeps the CLI alive for up to a minute after it is done.
const originalSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...rest: unknown[]) => {
  const timer = originalSetTimeout(fn, ms, ...rest);
  if ((ms ?? 0) >= 5_000) timer.unref?.();
  return timer;
}) as typeof globalThis.setTimeout;

function poolConfig(url: string, database?: string): pg.PoolConfig {
  // The database named in the URL itself: pg lets a connection string override a separate `database` option, which
  // would send the shadow database's work to the main one. Its other parameters (sslmode, sslrootcert, ...) stay.
  const u = new URL(url);
  if (database) u.pathname = `/${encodeURIComponent(database)}`;
  return { connectionString: u.toString(), allowExitOnIdle: true };
}

class CliPrismaPg extends PrismaPg {
  constructor(private readonly url: string) {
    super(poolConfig(url));
  }

  // The stock shadow database is dropped while its own pool still holds connections; close the pool first.
  override async connectToShadowDb() {
    const main = await this.connect();
    const database = `prisma_migrate_shadow_db_${globalThis.crypto.randomUUID().replaceAll("-", "")}`;
    await main.executeScript(`CREATE DATABASE "${database}"`);
    const shadow = await new PrismaPg(poolConfig(this.url, database)).connect();
    const dispose = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await dispose();
      await main.executeScript(`DROP DATABASE IF EXISTS "${database}"`);
      await main.dispose();
    };
    return shadow;
  }
}

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: path.join("prisma", "schema.prisma"),
  migrations: { path: path.join("prisma", "migrations") },
  adapter: async () => new CliPrismaPg(process.env.DATABASE_URL!),
});
