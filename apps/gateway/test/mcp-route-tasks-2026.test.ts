import { disconnectDb, getDb } from "@switchboard/db/client";
import { makeAccessToken, makeTeamWithMember } from "@switchboard/db/testing";
import { Upstream2026, TASKS_EXTENSION } from "@switchboard/testing/upstream-2026";
import { waitUntil } from "@switchboard/testing/wait";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setInstallationGuardrails } from "@switchboard/db/queries/governance";
import { forgetGuardrailSettings } from "../src/mcp/guardrails";
import { installDiscovered, routeBase, startRoute, teardownRoute } from "./support/mcp";

/** The tasks extension (io.modelcontextprotocol/tasks) through the route, to a 2026-07-28 upstream that serves it. */
let upstream: Upstream2026;
let token: string;
/** Another member of the team with the same server: a task of Alice's is not Bob's to see. */
let bobToken: string;
let installationId: string;

beforeAll(async () => {
  upstream = await Upstream2026.start({ tasks: true });
  await startRoute();
  const db = getDb();
  const { owner: alice, member: bob, team } = await makeTeamWithMember(db);
  const { installation } = await installDiscovered({
    teamId: team.id,
    slug: "tasks",
    name: "Tasks",
    url: upstream.url,
    userIds: [alice.id, bob.id],
  });
  installationId = installation.id;
  token = (await makeAccessToken(db, { userId: alice.id, teamId: team.id })).token;
  bobToken = (await makeAccessToken(db, { userId: bob.id, teamId: team.id, name: "bob" })).token;
});

afterAll(async () => {
  await teardownRoute();
  await upstream?.stop();
  await disconnectDb();
});

const V = "2026-07-28";
const NAMED: Record<string, string> = {
  "tools/call": "name",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};
let ids = 0;

/** One 2026-07-28 POST to the route, from a client that declares the tasks extension unless told otherwise. */
async function rev2026(
  method: string,
  params: Record<string, unknown> = {},
  { tasks = true, bearer = token }: { tasks?: boolean; bearer?: string } = {},
) {
  const field = NAMED[method];
  const headers: Record<string, string> = {
    authorization: `Bearer ${bearer}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": V,
    "mcp-method": method,
  };
  if (field) headers["mcp-name"] = String(params[field]);
  const id = `r${++ids}`;
  const res = await fetch(new URL("/api/mcp/servers/tasks", routeBase()), {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": V,
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1.0.0" },
          "io.modelcontextprotocol/clientCapabilities": tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {},
        },
      },
    }),
  });
  const text = await res.text();
  // A tools/call may be answered on an event stream: its last data line is the response.
  const json = text.startsWith("{")
    ? text
    : (
        text
          .split("\n")
          .filter((l) => l.startsWith("data: "))
          .pop() ?? ""
      ).slice(6);
  const body = JSON.parse(json) as { id: string; result?: Record<string, unknown>; error?: { code: number } };
  expect(body.id).toBe(id);
  return { status: res.status, body };
}

async function settled(taskId: string) {
  let result: Record<string, unknown> | undefined;
  await waitUntil(
    async () => {
      result = (await rev2026("tasks/get", { taskId })).body.result;
      return result?.status !== "working";
    },
    `task ${taskId} to stop working`,
    5_000,
  );
  return result!;
}

/** The task ids the upstream saw in tasks/* requests since `from`. */
const upstreamTaskIds = (from: number) =>
  upstream.seen
    .slice(from)
    .filter((r) => r.method?.startsWith("tasks/"))
    .map((r) => (r.body as { params: { taskId: string } }).params.taskId);

describe("the tasks extension through the route", () => {
  it("is advertised in server/discover when the upstream offers it and the client declares it", async () => {
    const declared = await rev2026("server/discover");
    expect(declared.body.result?.capabilities).toMatchObject({ extensions: { [TASKS_EXTENSION]: {} } });
    expect((declared.body.result?.capabilities as Record<string, unknown>).tasks).toBeUndefined();
    const undeclared = await rev2026("server/discover", {}, { tasks: false });
    expect((undeclared.body.result?.capabilities as Record<string, unknown>).extensions).toBeUndefined();
  });

  it("gives a client that does not declare it the tool's result, and refuses it tasks/* with -32021", async () => {
    const { body } = await rev2026("tools/call", { name: "slow", arguments: { seconds: 0 } }, { tasks: false });
    expect(body.result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "slow:0" }] });
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const refused = await rev2026(method, { taskId: "t", inputResponses: {} }, { tasks: false });
      expect(refused).toMatchObject({ status: 400, body: { error: { code: -32021 } } });
    }
  });

  it("passes a task through under an id of ours, polled with tasks/get at the upstream that owns it", async () => {
    const before = upstream.seen.length;
    const created = await rev2026("tools/call", { name: "slow", arguments: { seconds: 0.3 } });
    const task = created.body.result!;
    expect(task).toMatchObject({ resultType: "task", status: "working", ttlMs: 60_000, pollIntervalMs: 50 });
    expect(task.content).toBeUndefined();
    const taskId = task.taskId as string;

    const working = await rev2026("tasks/get", { taskId });
    expect(working.body.result).toMatchObject({ resultType: "complete", taskId, status: "working" });
    const done = await settled(taskId);
    expect(done).toMatchObject({
      taskId,
      status: "completed",
      result: { content: [{ type: "text", text: "slow:0.3" }] },
    });

    // The upstream saw its own id, not ours, in the body and in Mcp-Name.
    const seen = upstreamTaskIds(before);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(new Set(seen).size).toBe(1);
    expect(seen[0]).not.toBe(taskId);
    const get = upstream.seen.slice(before).find((r) => r.method === "tasks/get")!;
    expect(get.headers["mcp-name"]).toBe(seen[0]);
  });

  it("forwards tasks/cancel and tasks/update, answering with the upstream's empty acknowledgement", async () => {
    const created = await rev2026("tools/call", { name: "slow", arguments: { seconds: 60 } });
    const taskId = created.body.result!.taskId as string;
    const updated = await rev2026("tasks/update", { taskId, inputResponses: {} });
    expect(updated.body.result).toMatchObject({ resultType: "complete" });
    const cancelled = await rev2026("tasks/cancel", { taskId });
    expect(cancelled.body.result).toMatchObject({ resultType: "complete" });
    expect(cancelled.body.result?.taskId).toBeUndefined();
    expect((await rev2026("tasks/get", { taskId })).body.result).toMatchObject({ taskId, status: "cancelled" });
  });

  it("treats a task id that is not ours, or another member's, as unknown (-32602) without asking the upstream", async () => {
    const created = await rev2026("tools/call", { name: "slow", arguments: { seconds: 60 } });
    const taskId = created.body.result!.taskId as string;
    const before = upstream.seen.length;
    const bobs = await rev2026("tasks/get", { taskId }, { bearer: bobToken });
    expect(bobs).toMatchObject({ status: 400, body: { error: { code: -32602 } } });
    const forged = await rev2026("tasks/cancel", { taskId: `${taskId.slice(0, -2)}xx` });
    expect(forged).toMatchObject({ status: 400, body: { error: { code: -32602 } } });
    const raw = await rev2026("tasks/get", { taskId: "189b6311-cc54-4588-b286-0689b8c46f5e" });
    expect(raw).toMatchObject({ status: 400, body: { error: { code: -32602 } } });
    expect(upstreamTaskIds(before)).toEqual([]);
    await rev2026("tasks/cancel", { taskId });
  });

  it("streams notifications/tasks for the member's tasks a subscriptions/listen names, until each ends", async () => {
    const quick = (await rev2026("tools/call", { name: "slow", arguments: { seconds: 0.4 } })).body.result!;
    const long = (await rev2026("tools/call", { name: "slow", arguments: { seconds: 60 } })).body.result!;
    const bobs = (await rev2026("tools/call", { name: "slow", arguments: { seconds: 60 } }, { bearer: bobToken })).body
      .result!;
    const controller = new AbortController();
    const res = await fetch(new URL("/api/mcp/servers/tasks", routeBase()), {
      method: "POST",
      signal: controller.signal,
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": V,
        "mcp-method": "subscriptions/listen",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "listen-tasks",
        method: "subscriptions/listen",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": V,
            "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1.0.0" },
            "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS_EXTENSION]: {} } },
          },
          notifications: { taskIds: [quick.taskId, long.taskId, bobs.taskId, "not-ours"] },
        },
      }),
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const frames: Array<{ method: string; params: Record<string, unknown> }> = [];
    let buffer = "";
    const readUntil = async (done: () => boolean) => {
      while (!done()) {
        const chunk = await reader.read();
        if (chunk.done) break;
        buffer += new TextDecoder().decode(chunk.value);
        const lines = buffer.split("\n");
        buffer = lines.pop()!;
        for (const line of lines) if (line.startsWith("data: ")) frames.push(JSON.parse(line.slice(6)));
      }
    };
    const of = (taskId: unknown) =>
      frames.filter((f) => f.method === "notifications/tasks" && f.params.taskId === taskId);
    await readUntil(() => of(quick.taskId).some((f) => f.params.status === "completed") && of(long.taskId).length > 0);
    controller.abort();
    // Only the member's own tasks are agreed to; Bob's and a made-up id are not.
    expect(frames[0]).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
      params: {
        notifications: { taskIds: [quick.taskId, long.taskId] },
        _meta: { "io.modelcontextprotocol/subscriptionId": "listen-tasks" },
      },
    });
    // Each change once, under our id, tagged with the stream; the last carries the result as tasks/get does.
    expect(of(quick.taskId).map((f) => f.params.status)).toEqual(["working", "completed"]);
    expect(of(quick.taskId)[1]!.params).toMatchObject({
      result: { content: [{ type: "text", text: "slow:0.4" }] },
      _meta: { "io.modelcontextprotocol/subscriptionId": "listen-tasks" },
    });
    expect(of(quick.taskId)[1]!.params.resultType).toBeUndefined();
    expect(of(long.taskId).map((f) => f.params.status)).toEqual(["working"]);
    expect(of(bobs.taskId)).toEqual([]);
    await rev2026("tasks/cancel", { taskId: long.taskId });
    await rev2026("tasks/cancel", { taskId: bobs.taskId }, { bearer: bobToken });
  });

  it("shows a finished task's result through the installation's guardrails, as the tool's result", async () => {
    // Started before the guardrails were set, so the address went up and comes back in the task's result.
    const created = await rev2026("tools/call", { name: "slow", arguments: { seconds: 0, note: "ada@example.com" } });
    const taskId = created.body.result!.taskId as string;
    await setInstallationGuardrails(getDb(), installationId, { email: "redact" });
    forgetGuardrailSettings();
    try {
      const done = await settled(taskId);
      expect(done).toMatchObject({ status: "completed", result: { content: [{ text: "slow:0 [redacted:email]" }] } });
      expect(JSON.stringify(done)).not.toContain("ada@example.com");
    } finally {
      await setInstallationGuardrails(getDb(), installationId, {});
      forgetGuardrailSettings();
    }
  });
});
