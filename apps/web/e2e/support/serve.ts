/**
 * Playwright's webServer: a fresh migrated database, then the production build of the console and the worker
 * on it (same Redis prefix and encryption key, so jobs and live events flow between them as in production).
 * Both processes are stopped and the database dropped when Playwright stops the server.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { rm } from "node:fs/promises";
import { createTestDatabase } from "@switchboard/db/testing";
import { startMailSink } from "../../test/support/mail-sink";
import { e2eDatabaseFile } from "./seed-db";
import { MAIL_DIR } from "./mail";
import { freePort } from "@switchboard/testing/net";
import { removeSandboxDir } from "@switchboard/testing/sandbox-dir";
import { METADATA_HOST, metadataDocumentServerEnv, metadataTlsDir } from "./metadata-document";

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
// The public process that serves the console: started as a process, as `npm start` does; never imported.
const gatewayDir = path.resolve(webDir, "../gateway");
const port = process.env.PLAYWRIGHT_PORT ?? "3210";

const repoRoot = path.resolve(webDir, "../..");
const bin = path.resolve(repoRoot, "node_modules/.bin");

const db = await createTestDatabase("e2e");
// Journeys that seed a large team straight into the database (the overview at scale) find it here.
writeFileSync(e2eDatabaseFile(port), JSON.stringify({ url: db.url }));
// Account mail (confirmation, password reset) goes over real SMTP to a sink the specs read (e2e/support/mail.ts).
await rm(MAIL_DIR, { recursive: true, force: true });
const mailSink = await startMailSink({ dir: MAIL_DIR });
const appUrl = `http://localhost:${port}`;
// The worker's internal bridge (stdio servers reached from the MCP route) on a free port with a fresh secret.
const bridgePort = await freePort();
const bridgeSecret = randomBytes(32).toString("hex");
const shared = {
  DATABASE_URL: db.url,
  SWITCHBOARD_ENCRYPTION_KEY: process.env.SWITCHBOARD_ENCRYPTION_KEY ?? randomBytes(32).toString("base64"),
  REDIS_PREFIX: `sb-e2e-${randomBytes(4).toString("hex")}`,
  // Specs start their upstream MCP and OAuth servers on 127.0.0.1 at ports picked per spec: that host is a named
  // egress exception (any port), in the console and in the worker alike. Other loopback names stay refused.
  // The Client ID Metadata Document spec serves its document on this machine under METADATA_HOST (any port).
  EGRESS_ALLOW: `127.0.0.1:*,${METADATA_HOST}:*`,
};
// What `npm start` runs: the gateway's server.ts (Next for the console as its child, the MCP route served directly).
const child = spawn(path.resolve(bin, "tsx"), ["server.ts"], {
  cwd: gatewayDir,
  stdio: "inherit",
  env: {
    ...process.env,
    ...shared,
    ...metadataDocumentServerEnv(port),
    NODE_ENV: "production",
    PORT: port,
    APP_URL: appUrl,
    BETTER_AUTH_SECRET: process.env.BETTER_AUTH_SECRET ?? randomBytes(32).toString("base64"),
    BRIDGE_URL: `http://127.0.0.1:${bridgePort}`,
    BRIDGE_SECRET: bridgeSecret,
    NEXT_TELEMETRY_DISABLED: "1",
    AUTH_RATE_LIMIT: "off",
    SMTP_URL: mailSink.url,
    MAIL_FROM: "Switchboard e2e <switchboard@e2e.test>",
  },
});

// The worker runs stdio templates by command name (mcp-server-everything), so the repo's bin goes on PATH.
// Each server runs in its sandbox, with its home under a directory of this run's own.
const sandboxDir = mkdtempSync(path.join(os.tmpdir(), "sb-e2e-sandboxes-"));
const worker = spawn(path.resolve(bin, "tsx"), ["apps/worker/src/main.ts"], {
  cwd: repoRoot,
  stdio: "inherit",
  env: {
    ...process.env,
    ...shared,
    PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}`,
    NODE_ENV: "production",
    LOG_LEVEL: process.env.WORKER_LOG_LEVEL ?? "warn",
    // Not the default port: a demo worker on this machine may hold it.
    BRIDGE_PORT: String(bridgePort),
    BRIDGE_SECRET: bridgeSecret,
    STDIO_SANDBOX_DIR: sandboxDir,
    // Its health endpoints are not used here, and their default port may be held by a demo worker.
    WORKER_HEALTH_PORT: "off",
  },
});

const exited = (p: ReturnType<typeof spawn>) =>
  new Promise((r) => (p.exitCode !== null || p.signalCode !== null ? r(null) : p.once("exit", r)));

let stopping = false;
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  child.kill("SIGTERM");
  worker.kill("SIGTERM");
  await Promise.all([exited(child), exited(worker)]);
  await mailSink.close().catch(() => undefined);
  rmSync(e2eDatabaseFile(port), { force: true });
  rmSync(metadataTlsDir(port), { recursive: true, force: true });
  await db.drop().catch((err) => console.error("could not drop the e2e database", err));
  removeSandboxDir(sandboxDir); // as root, each instance's file system is mounted below it
  process.exit(code);
}
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
child.on("exit", (code) => void stop(code ?? 1));
worker.on("exit", (code) => {
  if (!stopping) console.error(`the worker exited (${code}); stopping the e2e server`);
  void stop(code ?? 1);
});
