import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PermanentlyFailedError, StdioSupervisor, type SupervisorEvent } from "../src/stdio";
import { fakeSpawner } from "./fixtures/fake-process";

const MINUTE = 60_000;
const launch = { transport: "stdio" as const, command: "fake", args: [], env: {} };

/** Lets promise callbacks (exit handling, restarts) run; setImmediate is left real on purpose. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

let events: SupervisorEvent[];
let spawner: ReturnType<typeof fakeSpawner>;
let supervisor: StdioSupervisor;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  vi.setSystemTime(0);
  events = [];
  spawner = fakeSpawner();
  supervisor = new StdioSupervisor({
    resolveLaunch: async () => launch,
    spawn: spawner.spawn,
    onEvent: (e) => void events.push(e),
  });
});
afterEach(async () => {
  await supervisor.closeAll();
  vi.useRealTimers();
});

const types = () => events.map((e) => e.type);
const latest = () => spawner.spawned.at(-1)!;

describe("crash policy (fake timers)", () => {
  it("restarts a crashed process and reports exit code, crashes in window and stderr tail", async () => {
    await supervisor.start("i");
    latest().crash(2, "boom\n");
    await settle();
    expect(spawner.spawned).toHaveLength(2);
    expect(events[1]).toEqual({
      type: "crashed",
      instanceId: "i",
      exitCode: 2,
      signal: null,
      crashesInWindow: 1,
      stderrTail: "boom\n",
      willRestart: true,
    });
    expect(types()).toEqual(["started", "crashed", "started"]);
  });

  it("gives up after the third crash in five minutes and refuses to start until an explicit restart", async () => {
    await supervisor.start("i");
    for (let crash = 1; crash <= 3; crash++) {
      vi.advanceTimersByTime(MINUTE);
      latest().crash(1);
      await settle();
    }
    expect(spawner.spawned).toHaveLength(3);
    expect(types()).toEqual(["started", "crashed", "started", "crashed", "started", "crashed", "permanently_failed"]);
    expect(supervisor.state("i")).toMatchObject({ running: false, permanentlyFailed: true, crashesInWindow: 3 });
    await expect(supervisor.connect("i")).rejects.toBeInstanceOf(PermanentlyFailedError);
    expect(spawner.spawned).toHaveLength(3);

    await supervisor.restart("i");
    expect(spawner.spawned).toHaveLength(4);
    expect(supervisor.state("i")).toMatchObject({ running: true, permanentlyFailed: false, crashesInWindow: 0 });
    latest().crash(1);
    await settle();
    expect(events.at(-2)).toMatchObject({ type: "crashed", crashesInWindow: 1, willRestart: true });
  });

  it("forgets crashes older than the five-minute window", async () => {
    await supervisor.start("i");
    for (const at of [0, 4 * MINUTE, 8 * MINUTE]) {
      vi.setSystemTime(at);
      latest().crash(1);
      await settle();
    }
    expect(types()).not.toContain("permanently_failed");
    expect(
      events.filter((e) => e.type === "crashed").map((e) => (e as { crashesInWindow: number }).crashesInWindow),
    ).toEqual([1, 2, 2]);
    expect(supervisor.state("i").running).toBe(true);
  });

  it("does not count a requested stop as a crash", async () => {
    await supervisor.start("i");
    await supervisor.stop("i");
    await settle();
    expect(types()).toEqual(["started", "stopped"]);
    expect(spawner.spawned[0]?.killed).toBe(true);
    expect(spawner.spawned).toHaveLength(1);
  });
});

describe("idle policy (fake timers)", () => {
  it("stops a process after three minutes without calls and starts it again on the next connect", async () => {
    await supervisor.connect("i");
    await vi.advanceTimersByTimeAsync(3 * MINUTE - 1);
    expect(types()).toEqual(["started"]);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(types()).toEqual(["started", "idle_stopped"]);
    expect(spawner.spawned[0]?.killed).toBe(true);

    await supervisor.connect("i");
    expect(types()).toEqual(["started", "idle_stopped", "started"]);
    expect(spawner.spawned).toHaveLength(2);
  });

  it("counts traffic as activity and never stops a process with a request pending", async () => {
    const transport = await supervisor.connect("i");
    await vi.advanceTimersByTimeAsync(2 * MINUTE);
    await transport.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow" } });
    await vi.advanceTimersByTimeAsync(2 * MINUTE);
    expect(types()).toEqual(["started"]); // 4 minutes in, but only 2 since the last traffic
    await vi.advanceTimersByTimeAsync(10 * MINUTE);
    expect(types()).toEqual(["started"]); // the call is still running
    latest().hooks.onReceive?.({ jsonrpc: "2.0", id: 1, result: { content: [] } });
    await vi.advanceTimersByTimeAsync(3 * MINUTE);
    await settle();
    expect(types()).toEqual(["started", "idle_stopped"]);
  });

  it("does not count requests the owner says are not use (health pings), nor their answers", async () => {
    const pings = new StdioSupervisor({
      resolveLaunch: async () => launch,
      spawn: spawner.spawn,
      onEvent: (e) => void events.push(e),
      isActivity: (message) => !("method" in message && message.method === "ping"),
    });
    const transport = await pings.connect("p");
    for (let id = 1; id <= 5; id++) {
      await vi.advanceTimersByTimeAsync(MINUTE);
      await transport.send({ jsonrpc: "2.0", id, method: "ping" });
      latest().hooks.onReceive?.({ jsonrpc: "2.0", id, result: {} });
    }
    await settle();
    expect(types()).toEqual(["started", "idle_stopped"]); // stopped at 3 minutes despite a ping every minute
    await pings.closeAll();
  });

  it("stops idle processes on demand as of a given time, leaving busy and recent ones", async () => {
    await supervisor.connect("quiet");
    const busy = await supervisor.connect("busy");
    await busy.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow" } });
    expect(await supervisor.stopIdle(Date.now() + MINUTE)).toEqual([]);
    expect(await supervisor.stopIdle(Date.now() + 3 * MINUTE)).toEqual(["quiet"]);
    expect(supervisor.running()).toEqual(["busy"]);
    expect(types()).toEqual(["started", "started", "idle_stopped"]);
  });

  it("keeps the cached catalogue out of its business: a stopped instance just starts again", async () => {
    await supervisor.connect("i");
    await supervisor.stop("i");
    const transport = await supervisor.connect("i");
    expect(transport).toBeDefined();
    expect(types()).toEqual(["started", "stopped", "started"]);
  });
});
