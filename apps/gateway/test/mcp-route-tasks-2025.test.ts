import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  TaskStatusNotificationSchema,
  type ClientCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { makeAccessToken, makeTeamWithMember } from "@switchboard/db/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { setInstallationGuardrails } from "@switchboard/db/queries/governance";
import { forgetGuardrailSettings } from "../src/mcp/guardrails";
import { TestUpstream } from "@switchboard/testing/upstream";
import { startEverythingHttp } from "./support/everything-http";
import { installDiscovered, routeBase, startRoute, teardownRoute } from "./support/mcp";

/**
 * 2025-11-25's experimental tasks through the route: SDK 1.x clients, and `server-everything` (the reference
 * server, whose `simulate-research-query` runs as a task and may ask for clarification inside it) upstream.
 */
let everything: Awaited<ReturnType<typeof startEverythingHttp>>;
let plain: TestUpstream;
let token: string;
let plainToken: string;
let bobToken: string;
let installationId: string;
const clients: Client[] = [];
const TOOL = "everything-simulate-research-query";

beforeAll(async () => {
  everything = await startEverythingHttp();
  await startRoute();
  const db = getDb();
  const { owner: alice, member: bob, team } = await makeTeamWithMember(db);
  const { installation } = await installDiscovered({
    teamId: team.id,
    slug: "everything",
    name: "Everything",
    url: everything.url,
    userIds: [alice.id, bob.id],
  });
  installationId = installation.id;
  token = (await makeAccessToken(db, { userId: alice.id, teamId: team.id })).token;
  bobToken = (await makeAccessToken(db, { userId: bob.id, teamId: team.id, name: "bob" })).token;
  // A team none of whose upstreams offers task calls: its sessions declare none.
  plain = await TestUpstream.start(["echo"]);
  const other = await makeTeamWithMember(db);
  await installDiscovered({
    teamId: other.team.id,
    slug: "plain",
    name: "Plain",
    url: plain.url,
    userIds: [other.owner.id],
  });
  plainToken = (await makeAccessToken(db, { userId: other.owner.id, teamId: other.team.id, name: "plain" })).token;
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
});

afterAll(async () => {
  await teardownRoute();
  await everything?.stop();
  await plain?.stop();
  await disconnectDb();
});

async function connect(bearer = token, capabilities: ClientCapabilities = {}, setHandlers?: (c: Client) => void) {
  const transport = new StreamableHTTPClientTransport(new URL("/api/mcp", routeBase()), {
    requestInit: { headers: { authorization: `Bearer ${bearer}` } },
  });
  const client = new Client({ name: "tasks-2025", version: "1.0.0" }, { capabilities });
  setHandlers?.(client);
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** A task-augmented call run to its end by the SDK's own task client: what it yielded, in order. */
async function runAsTask(client: Client, args: Record<string, unknown>) {
  const seen: Array<{ type: string; task?: { taskId: string; status: string }; result?: unknown; error?: unknown }> =
    [];
  await client.listTools();
  for await (const message of client.experimental.tasks.callToolStream(
    { name: TOOL, arguments: args },
    CallToolResultSchema,
    { task: { ttl: 60_000 } },
  ))
    seen.push(message as never);
  return seen;
}

describe("2025-11-25 tasks through the route", () => {
  it("runs a task-augmented call normally where the session declares no task calls, ignoring `task`", async () => {
    // basic/utilities/tasks: "Receivers that do not declare the task capability for a request type MUST process
    // requests of that type normally, ignoring any task-augmentation metadata if present."
    const client = await connect(plainToken);
    expect(client.getServerCapabilities()?.tasks).toBeUndefined();
    const result = await client.request(
      { method: "tools/call", params: { name: "plain-echo", arguments: { text: "as a call" }, task: { ttl: 60_000 } } },
      CallToolResultSchema,
    );
    expect(result.content).toEqual([{ type: "text", text: "echo:as a call" }]);
  });

  it("declares task-augmented tool calls when an upstream offers them, and lists the tool's task support", async () => {
    const client = await connect();
    expect(client.getServerCapabilities()?.tasks).toMatchObject({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === TOOL)?.execution).toMatchObject({ taskSupport: "required" });
  });

  it("runs a call as a task the SDK client polls to its result, under a task id of ours", async () => {
    const client = await connect();
    const statuses: Array<{ taskId: string; status: string }> = [];
    client.setNotificationHandler(TaskStatusNotificationSchema, (n) => void statuses.push(n.params));
    const seen = await runAsTask(client, { topic: "tides" });
    expect(seen.map((m) => m.type)).toContain("taskCreated");
    const created = seen.find((m) => m.type === "taskCreated")!.task!;
    const result = seen.at(-1)!;
    expect(result.type).toBe("result");
    expect(JSON.stringify(result.result)).toContain("tides");
    // Our id: signed, naming the owning instance, not the upstream's UUID.
    expect(created.taskId).not.toMatch(/^[0-9a-f-]{36}$/);
    const got = await client.experimental.tasks.getTask(created.taskId);
    expect(got).toMatchObject({ taskId: created.taskId, status: "completed" });
    // Status notifications the upstream sends name the task as the client knows it.
    expect(statuses.length).toBeGreaterThan(0);
    for (const status of statuses) expect(status.taskId).toBe(created.taskId);
    // Listed under the same id, and another member can neither list nor read it.
    const listed = await client.experimental.tasks.listTasks();
    expect(listed.tasks.map((t) => t.taskId)).toContain(created.taskId);
    const bob = await connect(bobToken);
    await expect(bob.experimental.tasks.getTask(created.taskId)).rejects.toMatchObject({ code: -32602 });
    expect((await bob.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).not.toContain(created.taskId);
  });

  it("relays the input the upstream asks for inside a task to the client, and goes on with its answer", async () => {
    const asked: string[] = [];
    const client = await connect(token, { elicitation: {} }, (c) =>
      c.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params.message);
        return { action: "accept", content: { interpretation: "ocean tides" } };
      }),
    );
    const seen = await runAsTask(client, { topic: "tides", ambiguous: true });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain("tides");
    const result = seen.at(-1)!;
    expect(result.type).toBe("result");
    expect(JSON.stringify(result.result)).toContain("ocean tides");
  });

  it("cancels a task at its upstream, and refuses an id that is not ours", async () => {
    const client = await connect();
    await client.listTools();
    const created = (await client.request(
      { method: "tools/call", params: { name: TOOL, arguments: { topic: "slow" }, task: { ttl: 60_000 } } },
      (await import("@modelcontextprotocol/sdk/types.js")).CreateTaskResultSchema,
    )) as { task: { taskId: string } };
    const cancelled = await client.experimental.tasks.cancelTask(created.task.taskId);
    expect(cancelled).toMatchObject({ taskId: created.task.taskId, status: "cancelled" });
    await expect(client.experimental.tasks.getTask("not-ours")).rejects.toMatchObject({ code: -32602 });
  });

  it("passes a task's result through the installation's guardrails, as a tool result", async () => {
    await setInstallationGuardrails(getDb(), installationId, { email: "redact" });
    forgetGuardrailSettings();
    try {
      // The address reaches the upstream in the answer to its question (not a call's arguments), and comes back
      // in the task's result.
      const client = await connect(token, { elicitation: {} }, (c) =>
        c.setRequestHandler(ElicitRequestSchema, async () => ({
          action: "accept",
          content: { interpretation: "tides for ada@example.com" },
        })),
      );
      const seen = await runAsTask(client, { topic: "tides", ambiguous: true });
      const text = JSON.stringify(seen.at(-1)!.result);
      expect(text).toContain("tides for [redacted:email]");
      expect(text).not.toContain("ada@example.com");
    } finally {
      await setInstallationGuardrails(getDb(), installationId, {});
      forgetGuardrailSettings();
    }
  });
});
