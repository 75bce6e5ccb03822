import { randomBytes } from "node:crypto";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeJobs } from "@switchboard/runtime/jobs";
import { redis, subscriberConnection } from "@switchboard/runtime/redis";
import { forgetLocalSessions } from "../src/mcp/sessions";
import { env } from "@switchboard/runtime/env";
import { redisKeys } from "@switchboard/core/contracts";
import { connectClient, routeBase, startRoute, stopRoute } from "./support/mcp";
import { installEverythingStdio } from "./support/stdio-everything";
import { freePort } from "@switchboard/testing/net";
import { startWorkerProcess } from "@switchboard/testing/worker-process";

let worker: Awaited<ReturnType<typeof startWorkerProcess>>;
let token: string;
let instanceId: string;

beforeAll(async () => {
  await startRoute();
  const bridgePort = await freePort();
  const bridgeSecret = randomBytes(24).toString("hex");
  process.env.BRIDGE_SECRET = bridgeSecret;
  process.env.BRIDGE_URL = `http://127.0.0.1:${bridgePort}`;

  ({ instanceId, token } = await installEverythingStdio("stdio"));
  // The worker reconciles on start: the provisioning instance is discovered over stdio and goes online.
  worker = await startWorkerProcess({ bridgeSecret, bridgePort });
}, 60_000);

afterAll(async () => {
  await stopRoute();
  await forgetLocalSessions();
  await worker?.stop();
  await closeJobs();
  const keys = await redis().keys(redisKeys.everything(env().REDIS_PREFIX));
  if (keys.length) await redis().del(...keys);
  redis().disconnect();
  subscriberConnection().disconnect();
  await disconnectDb();
});

describe("a stdio server hosted by the worker, through the hosted MCP route", () => {
  it("lists and calls its namespaced tools over the worker's bridge", async () => {
    await expect
      .poll(async () => (await getDb().instance.findUniqueOrThrow({ where: { id: instanceId } })).status, {
        timeout: 45_000,
        interval: 500,
      })
      .toBe("online");
    const { client } = await connectClient(token);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("everything-echo");
    const result = await client.callTool({ name: "everything-echo", arguments: { message: "over the bridge" } });
    expect(JSON.stringify(result.content)).toContain("over the bridge");
    // A long call's progress crosses both hops (route and bridge) under the client's own token.
    const progress: number[] = [];
    const long = await client.callTool(
      { name: "everything-trigger-long-running-operation", arguments: { duration: 0.6, steps: 3 } },
      undefined,
      {
        onprogress: (p) => void progress.push(p.progress),
      },
    );
    expect(long.isError).not.toBe(true);
    // The server sends its last step right before the result; the SDK client drops a progress notification
    // that arrives in the same read as its response (directly over stdio too), so only the earlier steps count.
    expect(progress.slice(0, 2)).toEqual([1, 2]);
    await client.close();
    // One process for the instance: the worker holds its lease.
    const lease = await redis().get(`${process.env.REDIS_PREFIX}:lease:stdio:${instanceId}`);
    expect(lease).toContain("http://127.0.0.1:");
  }, 60_000);

  it("relays what the stdio server asks (sampling, elicitation, roots) across the bridge to the calling client", async () => {
    await expect
      .poll(async () => (await getDb().instance.findUniqueOrThrow({ where: { id: instanceId } })).status, {
        timeout: 45_000,
        interval: 500,
      })
      .toBe("online");
    const asked: string[] = [];
    const client = new Client(
      { name: "capable", version: "1.0.0" },
      { capabilities: { sampling: {}, elicitation: {}, roots: {} } },
    );
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      asked.push("sampling");
      return { model: "test-model", role: "assistant", content: { type: "text", text: "sampled over stdio" } };
    });
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked.push("elicitation");
      return { action: "accept", content: { name: "Ada" } };
    });
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      asked.push("roots");
      return { roots: [{ uri: "file:///projects/stdio-root", name: "stdio-root" }] };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("/api/mcp", routeBase()), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      // Discovery listed on a process offered them, so the server's capable-client-only tools are in the catalogue
      // and listed to this client, whose calls go to the instance's process for exactly its capabilities.
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining([
          "everything-trigger-sampling-request",
          "everything-trigger-elicitation-request",
          "everything-get-roots-list",
        ]),
      );
      const sampled = await client.callTool({
        name: "everything-trigger-sampling-request",
        arguments: { prompt: "hi" },
      });
      expect(JSON.stringify(sampled.content)).toContain("sampled over stdio");
      const elicited = await client.callTool({ name: "everything-trigger-elicitation-request", arguments: {} });
      expect(JSON.stringify(elicited.content)).toContain("Ada");
      const roots = await client.callTool({ name: "everything-get-roots-list", arguments: {} });
      expect(roots.isError).not.toBe(true);
      expect(asked).toEqual(expect.arrayContaining(["sampling", "elicitation"]));

      // A client that declared none of it is served by the instance's main process, offered nothing: it neither
      // sees those tools nor can call them (a clean "unknown tool", not a hang), and its other calls work.
      const { client: plain } = await connectClient(token);
      const plainNames = (await plain.listTools()).tools.map((t) => t.name);
      expect(plainNames).toContain("everything-echo");
      for (const name of [
        "everything-trigger-sampling-request",
        "everything-trigger-elicitation-request",
        "everything-get-roots-list",
      ]) {
        expect(plainNames).not.toContain(name);
      }
      await expect(
        plain.callTool({ name: "everything-trigger-sampling-request", arguments: { prompt: "hi" } }),
      ).rejects.toThrow(/Unknown tool/);
      expect(
        JSON.stringify((await plain.callTool({ name: "everything-echo", arguments: { message: "plain" } })).content),
      ).toContain("plain");
      await plain.close();
    } finally {
      await client.close();
    }
  }, 60_000);

  it("serves SDK v2 clients at 2026-07-28 (eliciting through input_required) and at 2025-11-25", async () => {
    await expect
      .poll(async () => (await getDb().instance.findUniqueOrThrow({ where: { id: instanceId } })).status, {
        timeout: 45_000,
        interval: 500,
      })
      .toBe("online");
    const url = new URL("/api/mcp", routeBase());
    const headers = { authorization: `Bearer ${token}` };
    const modern = new ClientV2(
      { name: "v2-modern", version: "1.0.0" },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    modern.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { name: "Lin" } }));
    await modern.connect(new TransportV2(url, { requestInit: { headers } }));
    try {
      const names = (await modern.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["everything-echo", "everything-trigger-elicitation-request"]));
      const echoed = await modern.callTool({ name: "everything-echo", arguments: { message: "stateless stdio" } });
      expect(JSON.stringify(echoed.content)).toContain("stateless stdio");
      // The stdio server asks over the bridge; the route turns that into an input_required round.
      const elicited = await modern.callTool({ name: "everything-trigger-elicitation-request", arguments: {} });
      expect(JSON.stringify(elicited.content)).toContain("Lin");
    } finally {
      await modern.close();
    }
    const legacy = new ClientV2({ name: "v2-legacy", version: "1.0.0" });
    await legacy.connect(new TransportV2(url, { requestInit: { headers } }));
    try {
      expect(legacy.getNegotiatedProtocolVersion()).toBe("2025-11-25");
      const echoed = await legacy.callTool({ name: "everything-echo", arguments: { message: "session stdio" } });
      expect(JSON.stringify(echoed.content)).toContain("session stdio");
    } finally {
      await legacy.close();
    }
  }, 60_000);
});
