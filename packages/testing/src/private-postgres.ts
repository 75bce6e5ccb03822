import { execFile, spawnSync } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { freePort } from "./net";
import { waitUntil } from "./wait";

const run = promisify(execFile);

/** The newest PostgreSQL server installed under /usr/lib/postgresql (Debian's layout). */
function postgresBin(): string {
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(path.join(base, v, "bin", "pg_ctl")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions[0]) throw new Error(`no PostgreSQL server under ${base} (apt-get install postgresql)`);
  return path.join(base, versions[0], "bin");
}

/**
 * A private PostgreSQL server in a temp directory on a free port, for tests and drills that restart the database
 * (the shared server on 5432 is never restarted: other runs use it). initdb and pg_ctl as they ship; when this
 * process is root they run as the `postgres` user, which PostgreSQL requires. Trust authentication on 127.0.0.1.
 */
export class PrivatePostgres {
  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly bin: string,
    private readonly asUser: string | undefined,
  ) {}

  /**
   * `tls`: a certificate and key (PEM files) to serve TLS with, and TLS only: its host-based authentication takes
   * `hostssl` connections and no others. Its URLs name 127.0.0.1, which the certificate must name.
   */
  static async start(opts: { tls?: { certFile: string; keyFile: string } } = {}): Promise<PrivatePostgres> {
    const bin = postgresBin();
    const asUser = process.getuid?.() === 0 ? "postgres" : undefined;
    const dir = mkdtempSync(path.join(os.tmpdir(), "sb-private-pg-"));
    if (asUser) {
      const ids = spawnSync("id", ["-u", asUser], { encoding: "utf8" });
      const uid = Number(ids.stdout.trim());
      chownSync(dir, uid, uid);
      chmodSync(dir, 0o700);
    }
    const server = new PrivatePostgres(await freePort(), dir, bin, asUser);
    try {
      await server.cmd("initdb", ["-D", server.dataDir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"]);
      if (opts.tls) server.serveTls(opts.tls);
      await server.startServer();
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  private tls = false;

  /** PostgreSQL reads the key only when it belongs to the server's user and no one else may read it. */
  private serveTls(files: { certFile: string; keyFile: string }): void {
    const cert = path.join(this.dataDir, "server.crt");
    const key = path.join(this.dataDir, "server.key");
    copyFileSync(files.certFile, cert);
    copyFileSync(files.keyFile, key);
    chmodSync(key, 0o600);
    if (this.asUser) {
      const uid = Number(spawnSync("id", ["-u", this.asUser], { encoding: "utf8" }).stdout.trim());
      chownSync(cert, uid, uid);
      chownSync(key, uid, uid);
    }
    writeFileSync(path.join(this.dataDir, "pg_hba.conf"), "local all all trust\nhostssl all all 127.0.0.1/32 trust\n");
    appendFileSync(path.join(this.dataDir, "postgresql.conf"), "ssl = on\n");
    this.tls = true;
  }

  private get dataDir(): string {
    return path.join(this.dir, "data");
  }

  /** Runs one of the server's programs, as `postgres` when we are root. */
  private cmd(program: string, args: string[]) {
    const file = path.join(this.bin, program);
    return this.asUser ? run("runuser", ["-u", this.asUser, "--", file, ...args]) : run(file, args);
  }

  private async startServer(): Promise<void> {
    // Its socket in its own directory (not /var/run/postgresql), fsync off: a throwaway server, fast to restart.
    const options = `-p ${this.port} -c listen_addresses=127.0.0.1 -k ${this.dir} -c fsync=off -c max_connections=200`;
    await this.cmd("pg_ctl", ["-D", this.dataDir, "-l", path.join(this.dir, "log"), "-o", options, "-w", "start"]);
    await waitUntil(() => this.answers(), `PostgreSQL on port ${this.port}`, 30_000, 100);
  }

  private async answers(): Promise<boolean> {
    const client = new pg.Client({
      connectionString: this.url("postgres"),
      connectionTimeoutMillis: 1_000,
      // Whether it answers, not whom: the tests check its certificate themselves.
      ssl: this.tls ? { rejectUnauthorized: false } : undefined,
    });
    client.on("error", () => {});
    try {
      await client.connect();
      await client.query("select 1");
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => {});
    }
  }

  /** A connection string to one of its databases, as user postgres. */
  url(database = "postgres"): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** The admin URL `@switchboard/db/testing`'s createTestDatabase reads (TEST_DATABASE_ADMIN_URL). */
  get adminUrl(): string {
    return this.url("postgres");
  }

  /**
   * Stops it as a crash would look to clients (`immediate`: every connection cut, no checkpoint) or politely
   * (`fast`), then starts it again on the same port. Resolves once it answers queries again.
   */
  async restart(mode: "fast" | "immediate" = "immediate"): Promise<void> {
    await this.cmd("pg_ctl", ["-D", this.dataDir, "-m", mode, "-w", "stop"]);
    await this.startServer();
  }

  /** Stops the server (if running) and removes its directory. Safe to call twice. */
  async stop(): Promise<void> {
    if (existsSync(path.join(this.dataDir, "postmaster.pid"))) {
      await this.cmd("pg_ctl", ["-D", this.dataDir, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
