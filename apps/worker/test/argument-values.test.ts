import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { makeInstance } from "./support/fixtures";
import { createHarness, JOB_NAMES, type Harness } from "./support/harness";

const db = getDb();
let h: Harness;

beforeAll(async () => {
  h = await createHarness("argvalues");
});
afterAll(async () => {
  await h?.close();
  await disconnectDb();
});

describe("argument values at launch", () => {
  // A value stored before the rule existed (or written around the console) meets the same rule at launch.
  it("does not start a process with a stored value that would become an option, and says why in the status", async () => {
    const { instance } = await makeInstance(db, {
      stdio: { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)", "{{name}}"] },
      fields: [{ key: "name", tier: "team", kind: "arg" }],
      teamValues: { name: { value: "--inspect=0.0.0.0:9229" } },
    });
    await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });

    await expect
      .poll(async () => (await db.instance.findUniqueOrThrow({ where: { id: instance.id } })).status, {
        timeout: 15_000,
      })
      .toBe("error");
    const row = await db.instance.findUniqueOrThrow({ where: { id: instance.id } });
    expect(row.statusMessage).toBe(
      'name cannot start with "-", because the server would read it as an option; remove the dash or ask an admin to change this setting.',
    );
    expect(row.reconnectAttempt).toBe(0);
    expect(await h.reconnectJob(instance.id)).toBeUndefined();
    expect(h.app.deps.connections.stdioState(instance.id)).toMatchObject({ running: false, pid: null });
  });
});
