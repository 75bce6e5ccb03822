import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import type { Db } from "./client";

/**
 * What a process's readiness needs from PostgreSQL: that it answers, and that every migration this build ships
 * is applied (a process of a newer build must not serve on an older schema; a database newer than the build, in
 * a rolling upgrade, is fine).
 */

/** `SELECT 1` on the process's own pool. */
export async function pingDatabase(db: Db): Promise<void> {
  await db.$queryRaw`SELECT 1`;
}

/**
 * The folder of the migrations this build ships (`prisma/migrations` at the repository's root, found upwards
 * from this file, so the source tree, a compiled `dist/` and an image keeping the repository's layout all
 * work), or null when it is not there.
 */
export function findMigrationsDir(from: string = import.meta.dirname): string | null {
  let dir = from;
  for (let i = 0; i < 8; i++) {
    const candidate = path.join(dir, "prisma", "migrations");
    if (existsSync(path.join(candidate, "migration_lock.toml"))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

/** The names of the migrations in `dir` (one folder each, named `<timestamp>_<name>`), in order. */
export function shippedMigrations(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(path.join(dir, e.name, "migration.sql")))
    .map((e) => e.name)
    .sort();
}

/**
 * The shipped migrations that are not applied: never run, failed, or rolled back (Prisma's `_prisma_migrations`
 * keeps one row per attempt). A database with no migrations table has none applied.
 */
export async function pendingMigrations(db: Db, shipped: readonly string[]): Promise<string[]> {
  let applied: Array<{ migration_name: string }>;
  try {
    applied = await db.$queryRaw<Array<{ migration_name: string }>>`
      SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
  } catch (error) {
    // 42P01: undefined_table, a database nobody migrated yet.
    if (/42P01|_prisma_migrations.*does not exist|relation .* does not exist/i.test(String(error))) return [...shipped];
    throw error;
  }
  const done = new Set(applied.map((r) => r.migration_name));
  return shipped.filter((name) => !done.has(name));
}

/** A readiness check (the shape `@switchboard/runtime/health` runs; declared here, db imports no runtime). */
export interface DatabaseCheck {
  name: string;
  failure: string;
  run(): Promise<void | string>;
}

/**
 * The readiness checks on PostgreSQL every process runs: it answers, and the shipped migrations are applied.
 * Once they were all seen applied the migrations check costs nothing more (migrations are not taken back).
 */
export function databaseChecks(db: () => Db, migrationsDir: string | null = findMigrationsDir()): DatabaseCheck[] {
  const shipped = migrationsDir ? shippedMigrations(migrationsDir) : null;
  let allApplied = false;
  return [
    { name: "postgres", failure: "PostgreSQL is not reachable", run: () => pingDatabase(db()) },
    {
      name: "migrations",
      failure: "The applied migrations could not be read",
      run: async () => {
        if (!shipped) return "The migrations this build ships were not found (prisma/migrations).";
        if (allApplied) return;
        const pending = await pendingMigrations(db(), shipped);
        if (pending.length === 0) {
          allApplied = true;
          return;
        }
        const names = pending.slice(0, 3).join(", ") + (pending.length > 3 ? ", ..." : "");
        return `${pending.length} migration${pending.length === 1 ? " is" : "s are"} not applied (${names}): run \`npm run db:migrate\` (prisma migrate deploy).`;
      },
    },
  ];
}
