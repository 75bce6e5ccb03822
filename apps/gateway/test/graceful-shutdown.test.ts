import http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { getDb } from "@switchboard/db/client";
import { makeAccessToken, makeTeam, makeUser } from "@switchboard/db/testing";
import { Balancer } from "@switchboard/testing/balancer";
import { Load } from "@switchboard/testing/chaos/load";
import { TestUpstream } from "@switchboard/testing/upstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { installDiscovered } from "./support/mcp";
import { startOtherRoute, type OtherRoute } from "./support/other-route";

/**
 * A gateway process stopped with SIGTERM under steady load, as Kubernetes stops a pod: real SDK clients call a
 * slow tool of a real upstream through a balancer, and the process they all use is signalled while their calls
 * are in flight (the balancer sends new connections to the second process from then on, as an endpoint removed
 * from a Service). Every call that had started finishes, and the clients' sessions go on on the second process.
 */
const CALL_MS = 1_500;
let upstream: TestUpstream;
let token: string;
let running = 0;
const routes: OtherRoute[] = [];
let balancer: Balancer | undefined;

beforeAll(async () => {
  upstream = await TestUpstream.start({
    server: () => {
      const mcp = new McpServer({ name: "slow", version: "1.0.0" });
      mcp.registerTool("work", { description: "Takes its time", inputSchema: { ms: z.number() } }, async ({ ms }) => {
        running++;
        await sleep(ms);
        running--;
        return { content: [{ type: "text", text: "done" }] };
      });
      return mcp;
    },
  });
  const db = getDb();
  const owner = await makeUser(db, { name: "shutdown" });
  const team = await makeTeam(db, owner);
  await installDiscovered({ teamId: team.id, slug: "slow", name: "Slow", url: upstream.url, userIds: [owner.id] });
  token = (await makeAccessToken(db, { userId: owner.id, teamId: team.id, name: "shutdown" })).token;
}, 60_000);

afterAll(async () => {
  await balancer?.stop();
  await Promise.all(routes.map((r) => r.stop()));
  await upstream?.stop();
});

/** GET /readyz on one kept-alive connection (opened before the signal: a new one would be refused then). */
function readyzOn(agent: http.Agent, port: number): Promise<{ status: number; body: { status?: string } }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: "/readyz", agent }, (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += String(d)));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as { status?: string } }));
      })
      .on("error", reject);
  });
}

describe("a gateway process stopped with SIGTERM under load", () => {
  it("finishes every call that had started, ends its streams, and its clients' sessions go on on another process", async () => {
    let backends: number[] = [];
    balancer = await Balancer.start(() => backends);
    const env = {
      LOG_LEVEL: "info",
      SHUTDOWN_GRACE_MS: "20000",
      MCP_ALLOWED_HOSTS: `${process.env.MCP_ALLOWED_HOSTS},127.0.0.1:${balancer.port}`,
    };
    const [first, second] = await Promise.all([startOtherRoute({ env }), startOtherRoute({ env })]);
    routes.push(first!, second!);
    backends = [first!.port];

    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const load = new Load({
      url: balancer.url,
      token,
      targets: [{ tool: "slow-work", arguments: { ms: CALL_MS } }],
      clients: 4,
      deadlineMs: 20_000,
      pauseMs: 20,
    });
    await load.start();
    try {
      // Every client has a call under way on the first process.
      await expect.poll(() => running, { timeout: 20_000, interval: 20 }).toBeGreaterThanOrEqual(3);
      backends = [second!.port];
      // Ready until the signal (and the connection used just now, so it is not idle long enough to be closed).
      expect((await readyzOn(agent, first!.port)).status).toBe(200);
      const signalAt = Date.now();
      first!.kill("SIGTERM");
      // Not ready at once, on a connection it had already accepted (new ones are refused).
      await expect
        .poll(() => readyzOn(agent, first!.port), { timeout: 5_000, interval: 20 })
        .toMatchObject({ status: 503, body: { status: "draining" } });
      expect(await first!.exited).toEqual({ code: 0, signal: null });
      // The same sessions call on, through the second process.
      await expect
        .poll(() => load.between(signalAt).filter((r) => r.outcome === "ok").length, { timeout: 30_000, interval: 100 })
        .toBeGreaterThanOrEqual(8);
      await load.stop();

      const before = load.records.filter((r) => r.startedAt < signalAt);
      const inFlight = before.filter((r) => r.endedAt >= signalAt);
      expect(inFlight.length).toBeGreaterThanOrEqual(3);
      expect(before.filter((r) => r.outcome !== "ok").map((r) => r.message)).toEqual([]);
      expect(load.between(signalAt).filter((r) => r.outcome === "hung")).toEqual([]);
      expect(load.reconnects).toBe(0);
      expect(balancer.accepted.get(second!.port) ?? 0).toBeGreaterThan(0);
      // Its clients' GET streams were ended rather than waited for.
      const finished = first!
        .output()
        .split("\n")
        .find((line) => line.includes('"msg":"calls in flight finished"'));
      expect(finished ?? first!.output()).toMatch(/"streams":[1-9]/);
    } finally {
      agent.destroy();
      await load.stop();
    }
  }, 90_000);
});
