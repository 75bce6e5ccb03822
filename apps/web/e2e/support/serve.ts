/**
 * Playwright's webServer: a fresh migrated database, then the production build of the console on it.
 * The database is dropped when Playwright stops the server.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase } from "@switchboard/db/testing";

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const port = process.env.PLAYWRIGHT_PORT ?? "3210";

const db = await createTestDatabase("e2e");
const appUrl = `http://localhost:${port}`;
const child = spawn(path.resolve(webDir, "../../node_modules/.bin/next") , ["start", "-p", port], {
  cwd: webDir,
  stdio: "inherit",
  env: {
    ...process.env,
    NODE_ENV: "production",
    DATABASE_URL: db.url,
    APP_URL: appUrl,
    BETTER_AUTH_SECRET: process.env.BETTER_AUTH_SECRET ?? randomBytes(32).toString("base64"),
    SWITCHBOARD_ENCRYPTION_KEY: process.env.SWITCHBOARD_ENCRYPTION_KEY ?? randomBytes(32).toString("base64"),
    REDIS_PREFIX: `sb-e2e-${randomBytes(4).toString("hex")}`,
    NEXT_TELEMETRY_DISABLED: "1",
    AUTH_RATE_LIMIT: "off",
  },
});

let stopping = false;
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  child.kill("SIGTERM");
  await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
  await db.drop().catch((err) => console.error("could not drop the e2e database", err));
  process.exit(code);
}
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
child.on("exit", (code) => void stop(code ?? 1));
