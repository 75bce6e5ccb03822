import type dns from "node:dns";
import type { LookupAddress } from "node:dns";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STRICT_EGRESS_POLICY } from "@switchboard/core/egress";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { listInstanceEvents } from "@switchboard/db/queries/instance-events";
import { makeInstance } from "./support/fixtures";
import { createHarness, JOB_NAMES, type Harness } from "./support/harness";

/**
 * The worker with the default egress rules (no exceptions, no private networks), as a deployment starts. The
 * bait is a real HTTP server on 127.0.0.1 that would answer every request with a body that must never become a
 * status message: the assertions show the worker never even sent it a request.
 */
const db = getDb();

/** A hosts-style resolver the test controls, standing in for DNS that answers what an attacker wants. */
const hosts = (table: Record<string, string>) =>
  ((host: string, _options: unknown, callback: (err: Error | null, addresses: LookupAddress[]) => void) =>
    table[host]
      ? callback(null, [{ address: table[host]!, family: 4 }])
      : callback(
          Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" }),
          [],
        )) as unknown as typeof dns.lookup;
let h: Harness;
let bait: Server;
let port = 0;
let baitRequests = 0;

beforeAll(async () => {
  bait = createServer((_req, res) => {
    baitRequests++;
    res.writeHead(500, { "content-type": "text/plain" }).end("BAIT-BODY: internal admin page");
  });
  await new Promise<void>((resolve) => bait.listen(0, "127.0.0.1", resolve));
  port = (bait.address() as AddressInfo).port;
  h = await createHarness("egress", {
    egress: STRICT_EGRESS_POLICY,
    egressResolve: hosts({ "rebound.test": "127.0.0.1" }),
  });
});
afterAll(async () => {
  await h?.close();
  bait?.closeAllConnections();
  await new Promise((resolve) => bait?.close(resolve));
  await disconnectDb();
});

async function rowOf(id: string) {
  return db.instance.findUniqueOrThrow({ where: { id } });
}

describe("egress rules in the worker", () => {
  it.each([
    [
      "loopback",
      () => `http://127.0.0.1:${port}/mcp`,
      () =>
        `This server's address 127.0.0.1 is on this host's loopback network, which Switchboard does not connect to. An operator can allow it by adding 127.0.0.1:${port} to EGRESS_ALLOW.`,
    ],
    [
      "IPv6 loopback",
      () => `http://[::1]:${port}/mcp`,
      () =>
        `This server's address ::1 is on this host's loopback network, which Switchboard does not connect to. An operator can allow it by adding [::1]:${port} to EGRESS_ALLOW.`,
    ],
    [
      "a decimal IP",
      () => `http://2130706433:${port}/mcp`,
      () =>
        `This server's address 127.0.0.1 is on this host's loopback network, which Switchboard does not connect to. An operator can allow it by adding 127.0.0.1:${port} to EGRESS_ALLOW.`,
    ],
    [
      "0.0.0.0",
      () => `http://0.0.0.0:${port}/mcp`,
      () =>
        `This server's address 0.0.0.0 is an address for this host itself, which Switchboard does not connect to. An operator can allow it by adding 0.0.0.0:${port} to EGRESS_ALLOW.`,
    ],
    [
      "the metadata service",
      () => "http://169.254.169.254/latest/meta-data/",
      () =>
        "This server's address 169.254.169.254 is a cloud instance-metadata address, which Switchboard does not connect to. An operator can allow it by adding 169.254.169.254:80 to EGRESS_ALLOW.",
    ],
    [
      "a private network",
      () => "http://10.255.255.1:8080/mcp",
      () =>
        "This server's address 10.255.255.1 is on a private network, which Switchboard does not connect to. An operator can allow private networks with EGRESS_ALLOW_PRIVATE, or this one server by adding 10.255.255.1:8080 to EGRESS_ALLOW.",
    ],
    [
      "user info",
      () => "http://user:pass@mcp.example.com/mcp",
      () =>
        "This server's URL contains a user name or password, which Switchboard does not send; put credentials in a secret header field instead.",
    ],
    // localhost is judged from the URL already (it never leaves the host); other names at connect time, below.
    [
      "localhost",
      () => `http://localhost:${port}/mcp`,
      () =>
        `This server's address localhost (127.0.0.1) is on this host's loopback network, which Switchboard does not connect to. An operator can allow it by adding localhost:${port} to EGRESS_ALLOW.`,
    ],
    // Resolved when the socket connects, by the resolver the worker was given (a hosts-style table here, the
    // system's in production): the check is on the address the connection goes to.
    [
      "a name that resolves to loopback at connect time",
      () => `http://rebound.test:${port}/mcp`,
      () =>
        `This server's address rebound.test (127.0.0.1) is on this host's loopback network, which Switchboard does not connect to. An operator can allow it by adding rebound.test:${port} to EGRESS_ALLOW.`,
    ],
  ])(
    "refuses %s at discovery with a readable error status, sends nothing and does not retry",
    async (_label, url, message) => {
      const before = baitRequests;
      const { instance } = await makeInstance(db, { url: url() });
      await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });

      await expect.poll(async () => (await rowOf(instance.id)).status, { timeout: 15_000 }).toBe("error");
      const row = await rowOf(instance.id);
      expect(row.statusMessage).toBe(message());
      expect(row.statusMessage).not.toContain("BAIT");
      expect(row.reconnectAttempt).toBe(0);
      expect(await h.reconnectJob(instance.id)).toBeUndefined();
      // The event is written just after the status: wait for it rather than read once.
      await expect
        .poll(
          async () =>
            (await listInstanceEvents(db, { instanceId: instance.id, types: ["discovery_failed"] }))[0]?.payload,
        )
        .toMatchObject({ error: message() });
      expect(baitRequests).toBe(before);
    },
  );

  it("ends a reconnect loop on a refused address in error, with the reason and no further attempt", async () => {
    const { instance } = await makeInstance(db, { url: `http://rebound.test:${port}/mcp` });
    await db.instance.update({
      where: { id: instance.id },
      data: { status: "offline", reconnectAttempt: 2, statusMessage: "was reachable" },
    });
    await h.add(JOB_NAMES.reconnect, { instanceId: instance.id });

    await expect.poll(async () => (await rowOf(instance.id)).status, { timeout: 15_000 }).toBe("error");
    const row = await rowOf(instance.id);
    expect(row.statusMessage).toContain("rebound.test (127.0.0.1) is on this host's loopback network");
    expect(row.reconnectAttempt).toBe(0);
    const jobs = await h.queue.getJobs(["delayed", "waiting"]);
    expect(jobs.filter((j) => j?.name === JOB_NAMES.reconnect && j.data.instanceId === instance.id)).toHaveLength(0);
  });
});
