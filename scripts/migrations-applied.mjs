// Exit 0 when DATABASE_URL's database has every migration under prisma/migrations applied (so `npm run demo` can
// skip `prisma migrate deploy`, which takes seconds to load); exit 1 when one is pending, or on any doubt.
import { readdirSync } from "node:fs";
import pg from "pg";

const dir = new URL("../prisma/migrations/", import.meta.url);
const wanted = readdirSync(dir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
const client = new pg.Client({ connectionString: process.env.DATABASE_URL, connectionTimeoutMillis: 3000 });
try {
  await client.connect();
  const { rows } = await client.query(
    "SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL",
  );
  const applied = new Set(rows.map((r) => r.migration_name));
  process.exitCode = wanted.every((name) => applied.has(name)) ? 0 : 1;
} catch {
  process.exitCode = 1;
} finally {
  await client.end().catch(() => {});
}
