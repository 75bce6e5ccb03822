import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { closeJobs } from "@switchboard/runtime/jobs";
import { activeToken } from "./support/tokens";
import { signedInCaller } from "./support/caller";
import { allowStdio } from "./support/deployment";
import { freePort } from "@switchboard/testing/net";
import { startWorkerProcess } from "@switchboard/testing/worker-process";

let worker: Awaited<ReturnType<typeof startWorkerProcess>>;

afterAll(async () => {
  await worker?.stop();
  await closeJobs();
  await disconnectDb();
});

/** Command lines of every process below `root` (the worker's process tree). */
function descendants(root: number): string[] {
  const rows = execFileSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" })
    .split("\n")
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const found: string[] = [];
  const queue = [root];
  while (queue.length) {
    const parent = queue.shift()!;
    for (const row of rows.filter((r) => r.ppid === parent)) {
      found.push(row.args);
      queue.push(row.pid);
    }
  }
  return found;
}

const stdioProcesses = () => descendants(worker.pid).filter((args) => args.includes("mcp-server-everything"));

describe("deleting a team", () => {
  it("has the worker stop the team's stdio processes and ends its tokens", async () => {
    const alice = await signedInCaller("alice");
    const team = await alice.caller.team.create({ name: `Doomed ${randomBytes(3).toString("hex")}` });
    const template = await seedTemplate(getDb(), {
      teamId: team.id,
      slug: "everything",
      name: "Everything",
      transport: "stdio",
      command: "mcp-server-everything",
    });
    // What a deployment owner does first: the worker's launch check refuses a stdio server otherwise.
    await allowStdio(team.id, [{ kind: "executable", name: "mcp-server-everything" }]);
    const installation = await seedInstallation(getDb(), { template });
    const instanceId = installation.instances[0]!.id;
    const { token } = await alice.caller.token.create({ teamId: team.id, name: "cli" });
    await expect(activeToken(token)).resolves.toMatchObject({ teamId: team.id });

    // The worker reconciles on start (started now, after the seeding, which queues no job) and runs the server as
    // its child while the instance is online.
    worker = await startWorkerProcess({ bridgeSecret: randomBytes(24).toString("hex"), bridgePort: await freePort() });
    await expect
      .poll(async () => (await getDb().instance.findUnique({ where: { id: instanceId } }))?.status, {
        timeout: 45_000,
        interval: 500,
      })
      .toBe("online");
    expect(stdioProcesses().length).toBeGreaterThan(0);

    await alice.caller.team.delete({ teamId: team.id, confirmSlug: team.slug });

    await expect(activeToken(token)).resolves.toBeNull();
    await expect.poll(stdioProcesses, { timeout: 30_000, interval: 250 }).toEqual([]);
  }, 90_000);
});
