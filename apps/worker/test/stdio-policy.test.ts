import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { changeCommandAllowList, setTeamStdioAllowed } from "@switchboard/db/queries/deployment";
import { makeInstance } from "./support/fixtures";
import { createHarness, JOB_NAMES, type Harness } from "./support/harness";

const db = getDb();
let h: Harness;
const EVERYTHING = path.resolve(import.meta.dirname, "../../../node_modules/.bin/mcp-server-everything");
// A copy of the path under another name: the allow-list matches the exact command, so this one is not on it
// unless a test adds it (other test files allow EVERYTHING itself in this shared database).
const UNLISTED = path.resolve(
  import.meta.dirname,
  "../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);

beforeAll(async () => {
  h = await createHarness("stdio-policy", { idleStopMs: 60_000 });
});
afterAll(async () => {
  await h?.close();
  await disconnectDb();
});

const row = (id: string) => db.instance.findUniqueOrThrow({ where: { id } });

describe("stdio launch policy in the worker", () => {
  it("starts nothing for a team no longer allowed stdio servers, and says why in the status", async () => {
    const { instance, team } = await makeInstance(db, { stdio: { command: EVERYTHING, args: ["stdio"] } });
    await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
    await expect.poll(async () => (await row(instance.id)).status, { timeout: 30_000, interval: 200 }).toBe("online");

    // The deployment owner withdraws the permission after the install: the next launch is refused.
    await setTeamStdioAllowed(db, { teamId: team.id, allowed: false });
    await h.add(JOB_NAMES.restart, { instanceId: instance.id, requestedBy: "ops" });
    await expect.poll(async () => (await row(instance.id)).status, { timeout: 30_000, interval: 200 }).toBe("error");
    const refused = await row(instance.id);
    expect(refused.statusMessage).toBe(
      "Not started: This team may not run stdio servers; a deployment owner can allow it in the deployment settings.",
    );
    expect(h.app.deps.connections.isConnected(instance.id)).toBe(false);
  });

  it("refuses a command taken off the allow-list after the install, and runs it again once it is back", async () => {
    const { instance } = await makeInstance(db, { stdio: { command: UNLISTED, args: ["stdio"] } });
    const entry = { kind: "executable" as const, name: UNLISTED };
    await changeCommandAllowList(db, {
      userId: "test",
      change: (list) => list.filter((e) => !(e.kind === "executable" && e.name === UNLISTED)),
    });
    await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
    await expect.poll(async () => (await row(instance.id)).status, { timeout: 30_000, interval: 200 }).toBe("error");
    expect((await row(instance.id)).statusMessage).toMatch(
      /^Not started: “.*dist\/index\.js” is not on this deployment's list of allowed commands/,
    );

    await changeCommandAllowList(db, { userId: "test", change: (list) => [...list, entry] });
    await h.add(JOB_NAMES.restart, { instanceId: instance.id, requestedBy: "ops" });
    await expect.poll(async () => (await row(instance.id)).status, { timeout: 30_000, interval: 200 }).toBe("online");
  });

  it("refuses a template whose settings set an environment variable that changes what the program loads", async () => {
    // Written straight into the database, as a template from before the console checked this would be.
    const { instance } = await makeInstance(db, {
      stdio: { command: EVERYTHING, args: ["stdio"] },
      fields: [{ key: "NODE_OPTIONS", tier: "user", kind: "env" }],
    });
    await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
    await expect.poll(async () => (await row(instance.id)).status, { timeout: 30_000, interval: 200 }).toBe("error");
    expect((await row(instance.id)).statusMessage).toBe(
      "Not started: A stdio server's settings cannot set NODE_OPTIONS: it changes what the program loads.",
    );
  });
});
