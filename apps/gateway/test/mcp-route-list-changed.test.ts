import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { listToolNames } from "@switchboard/db/queries/catalogue";
import { listInstanceEvents } from "@switchboard/db/queries/instance-events";
import { subscriberConnection } from "@switchboard/runtime/redis";
import { liveEventsReady } from "@switchboard/runtime/live-events";
import { TestUpstream } from "@switchboard/testing/upstream";
import { Upstream2026 } from "@switchboard/testing/upstream-2026";
import { startWorkerProcess, type WorkerProcess } from "@switchboard/testing/worker-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routeBase, teardownRoute } from "./support/mcp";
import { startRouteWith } from "./support/route-team";

/**
 * An upstream's tools/list_changed, end to end: the route's shared upstream connection hears it and queues
 * `instance.catalogue-refresh`, the worker (a real process) lists the upstream again into the catalogue and
 * publishes catalogue_changed, and the route's clients hear list_changed (2025-11-25 sessions on their GET stream,
 * 2026-07-28 clients on subscriptions/listen) and list the new tools.
 */

const V = "2026-07-28";
/** The worker's round trip (queue, list, sync, publish) on a loaded machine. */
const REFRESHED = { timeout: 20_000, interval: 100 };

let legacy: TestUpstream;
let rev2026: Upstream2026;
let worker: WorkerProcess;
let token: string;
let instance2025: string;
let instance2026: string;

beforeAll(async () => {
  legacy = await TestUpstream.start(["echo", "add"]);
  rev2026 = await Upstream2026.start();
  const route = await startRouteWith([
    { slug: "legacy", name: "Legacy", url: legacy.url },
    { slug: "rev2026", name: "At 2026", url: rev2026.url },
  ]);
  token = route.token;
  instance2025 = route.installed.legacy!.instances[0]!;
  instance2026 = route.installed.rev2026!.instances[0]!;
  await liveEventsReady();
  worker = await startWorkerProcess();
}, 60_000);

afterAll(async () => {
  await teardownRoute();
  await worker?.stop();
  subscriberConnection().disconnect();
  await legacy?.stop();
  await rev2026?.stop();
  await disconnectDb();
});

const statusOf = async (id: string) => (await getDb().instance.findUniqueOrThrow({ where: { id } })).status;
const statusesOf = async (id: string) =>
  (await listInstanceEvents(getDb(), { instanceId: id, types: ["status_changed"] })).map(
    (e) => (e.payload as { to: string }).to,
  );

/** Every status the instance is seen in while `during` runs (polled, as a client's list would read it). */
async function watchStatus(id: string, during: () => Promise<void>): Promise<string[]> {
  const seen = new Set<string>([await statusOf(id)]);
  const watch = setInterval(() => void statusOf(id).then((s) => seen.add(s)), 10);
  try {
    await during();
  } finally {
    clearInterval(watch);
  }
  seen.add(await statusOf(id));
  return [...seen];
}

/**
 * An SDK 1.x client on the namespaced route, which tells when its standalone GET stream (where the route sends
 * server-initiated notifications) is open: a notification sent before that is not delivered to it.
 */
async function connectListening() {
  let streamOpen = false;
  const transport = new StreamableHTTPClientTransport(new URL("/api/mcp", routeBase()), {
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      if (init?.method === "GET" && res.ok) streamOpen = true;
      return res;
    },
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "list-changed", version: "1.0.0" });
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
  await client.connect(transport);
  await expect.poll(() => streamOpen).toBe(true);
  return { client, changed: () => changed };
}

describe("an upstream's tools/list_changed, through the route and the worker", () => {
  it("2025-11-25 upstream: the catalogue is refreshed in place and a 1.x client hears list_changed", async () => {
    const { client, changed } = await connectListening();
    try {
      const names = async () => (await client.listTools()).tools.map((t) => t.name);
      expect(await names()).toEqual(expect.arrayContaining(["legacy-echo", "legacy-add"]));
      // A call opens the route's shared connection to the upstream, which listens on its own GET stream.
      const echoed = await client.callTool({ name: "legacy-echo", arguments: { text: "hi" } });
      expect(echoed.isError).not.toBe(true);
      await expect.poll(() => legacy.allListening).toBe(true);
      const statusesBefore = await statusesOf(instance2025);
      expect(statusesBefore.at(-1) ?? "online").toBe("online");

      const seen = await watchStatus(instance2025, async () => {
        // A new server version without a restart: "search" added, "add" removed, on the open session.
        legacy.setTools(["echo", "search"]);
        await expect.poll(changed, REFRESHED).toBeGreaterThan(0);
        await expect.poll(() => listToolNames(getDb(), instance2025)).toEqual(["echo", "search"]);
      });

      const listed = await names();
      expect(listed).toContain("legacy-search");
      expect(listed).not.toContain("legacy-add");
      // The worker recorded the change as a refresh, not a rediscovery: the instance never left online.
      expect(seen).toEqual(["online"]);
      expect(await statusesOf(instance2025)).toEqual(statusesBefore);
      const events = await listInstanceEvents(getDb(), {
        instanceId: instance2025,
        types: ["tools_changed", "catalogue_changed", "discovery_failed"],
      });
      expect(events.map((e) => [e.type, e.payload])).toEqual([
        ["tools_changed", { added: ["search"], removed: ["add"], changed: [] }],
        ["catalogue_changed", { reason: "The server's tools list changed" }],
      ]);
      const called = await client.callTool({ name: "legacy-search", arguments: { text: "found" } });
      expect(JSON.stringify(called.content)).toContain("search:found");
    } finally {
      await client.close();
    }
  }, 60_000);

  it("2026-07-28 upstream: a 2026-07-28 client on subscriptions/listen hears list_changed and lists the new tool", async () => {
    const client = new ClientV2({ name: "v2-listen", version: "1.0.0" }, { versionNegotiation: { mode: { pin: V } } });
    let changed = 0;
    client.setNotificationHandler("notifications/tools/list_changed", () => void changed++);
    await client.connect(
      new TransportV2(new URL("/api/mcp", routeBase()), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const names = async () => (await client.listTools()).tools.map((t) => t.name);
      expect(await names()).not.toContain("rev2026-extra");
      // A call opens the route's shared connection, which holds a subscriptions/listen stream on the upstream.
      expect(await client.callTool({ name: "rev2026-echo", arguments: { text: "hi" } })).toMatchObject({
        content: [{ type: "text", text: "echo:hi" }],
      });
      // Counted once connections have settled: a replaced stream stays open until its successor is, and on a
      // loaded machine (a CI run's Redis Cluster pass) three were still open a second after the call.
      await expect.poll(() => rev2026.openListens, REFRESHED).toBe(1);
      const subscription = await client.listen({ toolsListChanged: true });
      expect(subscription.honoredFilter.toolsListChanged).toBe(true);
      const statusesBefore = await statusesOf(instance2026);

      const seen = await watchStatus(instance2026, async () => {
        rev2026.setTools(["echo", "add", "extra"]);
        await expect.poll(() => changed, REFRESHED).toBeGreaterThan(0);
      });

      expect(await names()).toContain("rev2026-extra");
      expect(await listToolNames(getDb(), instance2026)).toContain("extra");
      expect(seen).toEqual(["online"]);
      expect(await statusesOf(instance2026)).toEqual(statusesBefore);
      await subscription.close();
    } finally {
      await client.close();
    }
  }, 60_000);
});
