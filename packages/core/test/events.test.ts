import { describe, expect, it } from "vitest";

import {
  CATALOGUE_EVENTS,
  changesCatalogue,
  EVENT_PAYLOAD_SCHEMAS,
  INSTANCE_EVENT_TYPES,
  STALE_CONNECTION_EVENTS,
  staleConnection,
  type LiveEvent,
  callsLoggedSchema,
  countLoggedCalls,
  createLiveEvent,
  parseLiveEvent,
} from "../src/events";

const ids = { teamId: "team_1", installationId: "inst_1", instanceId: "ins_1", userId: "user_1" };
const at = "2026-01-02T03:04:05.000Z";

describe("event types", () => {
  it("lists the 16 instance event types, each with a payload schema", () => {
    expect([...INSTANCE_EVENT_TYPES].sort()).toEqual(
      [
        "status_changed",
        "server_disconnected",
        "server_reconnecting",
        "server_reconnected",
        "server_health_degraded",
        "server_health_restored",
        "server_crashed",
        "server_permanently_failed",
        "server_restarted",
        "reconnect_requested",
        "discovery_completed",
        "discovery_failed",
        "tools_changed",
        "catalogue_changed",
        "tool_review_pending",
        "tool_review_decided",
        "approval_requested",
      ].sort(),
    );
    for (const t of INSTANCE_EVENT_TYPES) expect(EVENT_PAYLOAD_SCHEMAS[t]).toBeDefined();
  });
});

describe("parseLiveEvent", () => {
  it.each([
    ["status_changed", { from: "online", to: "offline", message: "fetch failed" }],
    ["status_changed", { from: null, to: "provisioning" }],
    ["server_reconnecting", { attempt: 3, nextRetryMs: 8000, lastError: "ECONNREFUSED" }],
    ["server_reconnected", { attemptsTaken: 4, capabilities: { tools: { listChanged: true } } }],
    ["server_disconnected", { reason: "transport closed", wasIntentional: false }],
    ["server_crashed", { exitCode: 1, signal: null, crashesInWindow: 2, stderrTail: "Error: boom" }],
    ["server_crashed", { exitCode: null, signal: "SIGKILL", crashesInWindow: 1 }],
    ["tools_changed", { added: ["a"], removed: [], changed: ["b"] }],
    ["server_health_degraded", { consecutiveFailures: 3, lastError: "timeout" }],
    ["server_health_restored", { failuresBeforeRestore: 4 }],
    ["discovery_failed", { error: "timeout", keptCachedTools: true }],
  ])("accepts a %s event from JSON", (type, payload) => {
    const result = parseLiveEvent(JSON.stringify({ ...ids, type, payload, at }));
    expect(result).toEqual({ success: true, event: { ...ids, type, payload, at } });
  });

  it.each([
    ["an unknown type", { ...ids, type: "server_exploded", payload: {}, at }],
    [
      "a payload of another type",
      { ...ids, type: "server_reconnecting", payload: { from: "online", to: "offline" }, at },
    ],
    ["an unknown status", { ...ids, type: "status_changed", payload: { from: "online", to: "reconnecting" }, at }],
    ["a negative attempt", { ...ids, type: "server_reconnecting", payload: { attempt: -1, nextRetryMs: 1 }, at }],
    ["a missing userId", { ...ids, userId: undefined, type: "catalogue_changed", payload: {}, at }],
    ["a non-ISO timestamp", { ...ids, type: "catalogue_changed", payload: {}, at: "yesterday" }],
  ])("rejects %s", (_name, value) => {
    const result = parseLiveEvent(value);
    expect(result.success).toBe(false);
    if (!result.success) expect(result.error.length).toBeGreaterThan(0);
  });

  it("rejects malformed JSON without throwing", () => {
    expect(parseLiveEvent("{not json")).toMatchObject({ success: false, error: expect.stringMatching(/Invalid JSON/) });
  });

  it("narrows the payload type by event type", () => {
    const result = parseLiveEvent({
      ...ids,
      type: "tools_changed",
      payload: { added: ["x"], removed: [], changed: [] },
      at,
    });
    if (!result.success || result.event.type !== "tools_changed") throw new Error("expected tools_changed");
    const added: string[] = result.event.payload.added;
    expect(added).toEqual(["x"]);
  });
});

describe("createLiveEvent", () => {
  it("stamps the time and round-trips through JSON", () => {
    const event = createLiveEvent("server_reconnecting", ids, { attempt: 1, nextRetryMs: 2000 }, new Date(at));
    expect(event).toEqual({ ...ids, type: "server_reconnecting", payload: { attempt: 1, nextRetryMs: 2000 }, at });
    expect(parseLiveEvent(JSON.stringify(event))).toEqual({ success: true, event });
  });

  it("throws on a payload the contract does not allow", () => {
    expect(() =>
      createLiveEvent("tools_changed", ids, { added: "x" } as unknown as {
        added: string[];
        removed: string[];
        changed: string[];
      }),
    ).toThrow();
  });
});

describe("request-log announcements", () => {
  it("counts a batch's rows per team, then per installation and member, with nothing of the calls themselves", () => {
    const row = (teamId: string, installationId: string, userId: string) => ({
      teamId,
      installationId,
      userId,
      target: "secret-tool",
      arguments: { key: "sk-1" },
    });
    const messages = countLoggedCalls(
      [row("t1", "i1", "u1"), row("t1", "i1", "u1"), row("t1", "i2", "u2"), row("t2", "i3", "u3")],
      new Date(at),
    );
    expect(messages).toEqual([
      {
        teamId: "t1",
        calls: [
          { installationId: "i1", userId: "u1", count: 2 },
          { installationId: "i2", userId: "u2", count: 1 },
        ],
        at,
      },
      { teamId: "t2", calls: [{ installationId: "i3", userId: "u3", count: 1 }], at },
    ]);
    for (const m of messages) expect(callsLoggedSchema.parse(m)).toEqual(m);
    expect(JSON.stringify(messages)).not.toMatch(/secret-tool|sk-1/);
  });

  it("announces nothing for an empty batch and refuses an announcement without calls", () => {
    expect(countLoggedCalls([])).toEqual([]);
    expect(callsLoggedSchema.safeParse({ teamId: "t1", calls: [], at }).success).toBe(false);
  });
});

describe("event groups", () => {
  const event = (type: string, payload: unknown = {}) =>
    ({ type, payload, teamId: "t", installationId: "i", instanceId: "n", userId: "u", at: "" }) as LiveEvent;

  it("names what changes a member's catalogue, and each is an event type", () => {
    for (const type of CATALOGUE_EVENTS) expect(INSTANCE_EVENT_TYPES).toContain(type);
    expect(changesCatalogue(event("tools_changed"))).toBe(true);
    expect(changesCatalogue(event("server_health_degraded"))).toBe(false);
  });

  it("drops a connection after a restart or a disconnect, and when a restart begins", () => {
    for (const type of STALE_CONNECTION_EVENTS) expect(staleConnection(event(type))).toBe(true);
    expect(staleConnection(event("status_changed", { from: "online", to: "restarting" }))).toBe(true);
    expect(staleConnection(event("status_changed", { from: "connecting", to: "online" }))).toBe(false);
    expect(staleConnection(event("tools_changed"))).toBe(false);
  });
});
