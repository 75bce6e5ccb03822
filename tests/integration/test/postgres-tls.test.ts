import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverCertificate } from "@switchboard/testing/certificates";
import { createDb } from "@switchboard/db/client";
import { PrivatePostgres } from "@switchboard/testing/private-postgres";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../../..");

/**
 * A managed PostgreSQL as teams run it: TLS only (a private server whose host-based authentication takes only
 * `hostssl` connections), with a certificate from a certificate authority made for this run. The migrations and
 * the apps' client both connect with `sslmode=verify-full` and the authority in `sslrootcert`, and each process's
 * pool stays within its bound.
 */
let dir: string;
let server: PrivatePostgres;
let tlsUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "sb-pg-tls-"));
  const tls = await serverCertificate(dir, { ip: "127.0.0.1" });
  server = await PrivatePostgres.start({ tls: { certFile: tls.cert, keyFile: tls.key } });
  tlsUrl = `${server.url("postgres")}?sslmode=verify-full&sslrootcert=${encodeURIComponent(tls.ca)}`;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("PostgreSQL over TLS", () => {
  it("applies the migrations and serves the apps' client over TLS, and refuses a connection without it", async () => {
    await run("npx", ["prisma", "migrate", "deploy"], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: tlsUrl },
      timeout: 120_000,
    });
    const db = createDb(tlsUrl, 3);
    try {
      const [row] = await db.$queryRaw<{ ssl: boolean }[]>`SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`;
      expect(row?.ssl).toBe(true);
      const [applied] = await db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM _prisma_migrations`;
      expect(Number(applied?.n)).toBeGreaterThan(0);
    } finally {
      await db.$disconnect();
    }
    const plain = new pg.Client({ connectionString: server.url("postgres") });
    await expect(plain.connect()).rejects.toThrow(/no pg_hba.conf entry|SSL off/);
    await plain.end().catch(() => {});
  }, 180_000);

  it("keeps a process's pool within its bound however many queries wait", async () => {
    const db = createDb(tlsUrl, 3);
    const watcher = new pg.Client({ connectionString: tlsUrl });
    await watcher.connect();
    const open = async () =>
      Number(
        (
          await watcher.query(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = 'postgres' AND pid <> pg_backend_pid() AND backend_type = 'client backend'",
          )
        ).rows[0].n,
      );
    try {
      let most = 0;
      let done = false;
      const queries = Promise.all(
        Array.from({ length: 12 }, () => db.$queryRaw`SELECT 1 AS one FROM pg_sleep(0.2)`),
      ).finally(() => (done = true));
      while (!done) most = Math.max(most, await open());
      await queries;
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(3);
    } finally {
      await watcher.end();
      await db.$disconnect();
    }
  }, 60_000);
});
