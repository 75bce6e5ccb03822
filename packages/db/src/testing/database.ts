import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

/** The server tests create their databases on; the database in the URL is only used to run CREATE/DROP. */
export function adminUrl(): string {
  return process.env.TEST_DATABASE_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** Runs the committed migrations with the real Prisma CLI, exactly as `npm run db:migrate` does. */
export async function migrate(url: string): Promise<void> {
  const prisma = path.join(repoRoot, "node_modules", ".bin", "prisma");
  await run(prisma, ["migrate", "deploy"], {
    cwd: repoRoot,
    env: { ...process.env, DATABASE_URL: url, CHECKPOINT_DISABLE: "1" },
  });
}

/** A fresh, migrated database with a unique name for one test run; `drop()` removes it. */
export async function createTestDatabase(label = "test"): Promise<TestDatabase> {
  const name = `sb_${label.replace(/[^a-z0-9_]/gi, "_").toLowerCase()}_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  const url = withDatabase(adminUrl(), name);
  try {
    await migrate(url);
  } catch (err) {
    await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    throw err;
  }
  return {
    name,
    url,
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}
