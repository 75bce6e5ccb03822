import path from "node:path";
import type { Job } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConnectionPool, egressFetch } from "@switchboard/core/upstream";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { listToolNames } from "@switchboard/db/queries/catalogue";
import { listInstanceEvents } from "@switchboard/db/queries/instance-events";
import { createJobProducer } from "@switchboard/runtime/jobs/producer";
import { TestUpstream } from "@switchboard/testing/upstream";
import { refreshCatalogue } from "../src/discovery-run";
import { makeInstance } from "./support/fixtures";
import { createHarness, JOB_NAMES, TEST_EGRESS, type Harness } from "./support/harness";

const db = getDb();
let h: Harness;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  h = await createHarness("catalogue-refresh");
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  await h?.close();
  await disconnectDb();
});

async function statusOf(id: string) {
  return (await db.instance.findUniqueOrThrow({ where: { id } })).status;
}

/** An instance of a fresh upstream, discovered by the worker and online (the worker holds its connection). */
async function discovered(tools: string[], installation: { pinTools?: boolean } = {}) {
  const upstream = await TestUpstream.start(tools);
  cleanups.push(() => upstream.stop());
  const { instance, installation: inst } = await makeInstance(db, { url: upstream.url });
  if (installation.pinTools) await db.installation.update({ where: { id: inst.id }, data: { pinTools: true } });
  await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
  await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("online");
  return { upstream, instance };
}

/** An online instance of a fresh upstream, and a pool that relays its list_changed to the queue as the route does. */
async function onlineInstance(tools: string[], installation: { pinTools?: boolean } = {}) {
  const { upstream, instance } = await discovered(tools, installation);
  const producer = createJobProducer(h.queue);
  const pool = new ConnectionPool({
    resolve: async () => ({
      launch: { transport: "streamable_http", url: upstream.url, headers: {} },
      fetch: egressFetch(TEST_EGRESS),
    }),
    onListChanged: (instanceId, kind) => void producer.requestCatalogueRefresh({ instanceId, kind }),
  });
  cleanups.push(() => pool.closeAll());
  await pool.get(instance.id);
  // The worker's connection and the pool's: a notification sent before a client's stream is open is lost.
  await expect.poll(() => upstream.allListening).toBe(true);
  return { upstream, instance };
}

describe("catalogue refresh on an upstream's list_changed", () => {
  it("syncs the changed tools into the catalogue while the instance stays online, and tells the member", async () => {
    const { upstream, instance } = await onlineInstance(["echo", "add"]);
    const before = await h.statusesOf(instance.id);
    expect(before.at(-1)).toBe("online");
    // Every status the instance goes through from here on, as the worker writes them.
    const seen = new Set<string>();
    const watch = setInterval(() => void statusOf(instance.id).then((s) => seen.add(s)), 10);
    cleanups.push(async () => clearInterval(watch));

    upstream.setTools(["echo", "search", "fetch"]);

    await expect.poll(() => listToolNames(db, instance.id), { timeout: 15_000 }).toEqual(["echo", "search", "fetch"]);
    await expect
      .poll(async () => (await listInstanceEvents(db, { instanceId: instance.id, types: ["tools_changed"] })).length)
      .toBe(1);
    clearInterval(watch);
    expect([...seen]).toEqual(["online"]);
    expect(await h.statusesOf(instance.id)).toEqual(before);
    const [changed] = await listInstanceEvents(db, { instanceId: instance.id, types: ["tools_changed"] });
    expect(changed!.payload).toEqual({ added: ["search", "fetch"], removed: ["add"], changed: [] });
    expect((await db.instance.findUniqueOrThrow({ where: { id: instance.id } })).toolCount).toBe(3);
    // The route's sessions hear of it through the live catalogue_changed.
    await expect
      .poll(() =>
        h.live.filter((e) => e.instanceId === instance.id && e.type === "catalogue_changed").map((e) => e.payload),
      )
      .toContainEqual({ reason: "The server's tools list changed" });
    expect(await h.eventTypes(instance.id)).not.toContain("discovery_failed");
  });

  it("follows the upstream with no client on the route: the worker's own connection hears list_changed", async () => {
    const { upstream, instance } = await discovered(["echo", "add"]);
    // Discovery's own sessions are closed; what is left is the worker's pooled connection, with its stream open.
    await expect.poll(() => upstream.allListening, { timeout: 15_000 }).toBe(true);
    const statuses = await h.statusesOf(instance.id);

    upstream.setTools(["echo", "add", "later"]);

    await expect.poll(() => listToolNames(db, instance.id), { timeout: 15_000 }).toEqual(["echo", "add", "later"]);
    await expect
      .poll(async () =>
        (await listInstanceEvents(db, { instanceId: instance.id, types: ["tools_changed"] })).map((e) => e.payload),
      )
      .toEqual([{ added: ["later"], removed: [], changed: [] }]);
    expect(await h.statusesOf(instance.id)).toEqual(statuses);
    expect(await statusOf(instance.id)).toBe("online");
  });

  it("follows a stdio server the worker hosts, which gains a tool at run time", async () => {
    const script = path.join(import.meta.dirname, "fixtures", "learning-server.mjs");
    const { instance } = await makeInstance(db, { stdio: { command: process.execPath, args: [script] } });
    await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
    await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("online");
    expect(await listToolNames(db, instance.id)).toEqual(["learn"]);

    // The call goes over the worker's own connection to the process, as the route's calls do through the bridge.
    const connection = await h.app.deps.connections.get(instance.id);
    await connection.callTool({ name: "learn", arguments: {} });

    await expect.poll(() => listToolNames(db, instance.id), { timeout: 15_000 }).toEqual(["learn", "learned"]);
    await expect
      .poll(async () =>
        (await listInstanceEvents(db, { instanceId: instance.id, types: ["tools_changed"] })).map((e) => e.payload),
      )
      .toEqual([{ added: ["learned"], removed: [], changed: [] }]);
    expect(await statusOf(instance.id)).toBe("online");
  });

  it("refreshes nothing for what a server announces as it starts: the discovery lists it already", async () => {
    const script = path.join(import.meta.dirname, "fixtures", "learning-server.mjs");
    const { instance } = await makeInstance(db, { stdio: { command: process.execPath, args: [script, "announce"] } });
    // By job id: a refresh that waits for the instance's lock becomes active again each time it retries.
    const refreshes = new Set<string>();
    const onActive = (job: Job) => {
      if (job.name === JOB_NAMES.catalogueRefresh && job.data.instanceId === instance.id) refreshes.add(job.id!);
    };
    h.app.worker.on("active", onActive);
    cleanups.push(async () => void h.app.worker.off("active", onActive));
    await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
    await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("online");
    expect(await listToolNames(db, instance.id)).toEqual(["learn", "announced"]);
    // A refresh asked for during the discovery would be queued by now: wait until none is left to run.
    const queued = async () =>
      (await h.queue.getJobs(["delayed", "waiting", "prioritized", "active"])).filter(
        (job) => job.name === JOB_NAMES.catalogueRefresh && job.data.instanceId === instance.id,
      ).length;
    await expect.poll(queued, { timeout: 15_000 }).toBe(0);

    // A change after the discovery is refreshed: the one refresh this instance sees.
    await (await h.app.deps.connections.get(instance.id)).callTool({ name: "learn", arguments: {} });
    await expect.poll(() => listToolNames(db, instance.id), { timeout: 15_000 }).toContain("learned");
    expect(refreshes.size).toBe(1);
  });

  it("stays quiet when a tools notice finds the tools as they were: no timeline line, nothing for clients", async () => {
    const { instance } = await discovered(["echo", "add"]);
    const changes = async () =>
      (await listInstanceEvents(db, { instanceId: instance.id, types: ["catalogue_changed"] })).length;
    const logger = h.app.deps.logger;

    expect(await refreshCatalogue(h.app.deps, { logger }, instance.id, "tools")).toMatchObject({
      kind: "refreshed",
      added: 0,
      removed: 0,
      changed: 0,
    });
    expect(await changes()).toBe(0);
    // Other lists have no diff of their own: their notice is passed on as it came.
    await refreshCatalogue(h.app.deps, { logger }, instance.id, "prompts");
    expect(await changes()).toBe(1);
  });

  it("holds a new tool of a pinned installation back for review, as a discovery does", async () => {
    const { upstream, instance } = await onlineInstance(["echo"], { pinTools: true });
    upstream.setTools(["echo", "late"]);
    await expect.poll(() => listToolNames(db, instance.id), { timeout: 15_000 }).toEqual(["echo", "late"]);
    await expect
      .poll(async () =>
        (await listInstanceEvents(db, { instanceId: instance.id, types: ["tool_review_pending"] })).map(
          (e) => e.payload,
        ),
      )
      .toContainEqual({ tools: ["late"] });
    expect(await statusOf(instance.id)).toBe("online");
  });

  it("leaves the instance online with its cached catalogue when the refresh cannot list", async () => {
    const { upstream, instance } = await onlineInstance(["echo", "add"]);
    upstream.failing = true;
    await h.add(JOB_NAMES.catalogueRefresh, { instanceId: instance.id, kind: "tools" });
    await expect
      .poll(
        async () =>
          (await listInstanceEvents(db, { instanceId: instance.id, types: ["discovery_failed"] })).map(
            (e) => e.payload,
          ),
        { timeout: 15_000 },
      )
      .toContainEqual(expect.objectContaining({ keptCachedTools: true }));
    expect(await statusOf(instance.id)).toBe("online");
    expect(await listToolNames(db, instance.id)).toEqual(["echo", "add"]);
  });
});
