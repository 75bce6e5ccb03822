import { afterEach, describe, expect, it } from "vitest";
import { withRetry } from "../src/policies";
import { processAlive, StdioSupervisor, type StdioLaunch, type SupervisorEvent } from "../src/stdio";
import { ConnectionPool } from "../src/upstream";
import { everythingBin } from "./fixtures/everything";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function supervise(launch: StdioLaunch, options: { idleStopMs?: number } = {}) {
  const events: SupervisorEvent[] = [];
  const supervisor = new StdioSupervisor({
    resolveLaunch: async () => launch,
    onEvent: (e) => void events.push(e),
    killGraceMs: 1_000,
    ...options,
  });
  cleanups.push(() => supervisor.closeAll());
  return { supervisor, events, count: (type: SupervisorEvent["type"]) => events.filter((e) => e.type === type).length };
}

const alive = processAlive;

const everything: StdioLaunch = { transport: "stdio", command: everythingBin(), args: [], env: {} };

describe("StdioSupervisor on real processes", () => {
  it("stops restarting a process that keeps exiting after three crashes", async () => {
    const { supervisor, events, count } = supervise({
      transport: "stdio",
      command: process.execPath,
      args: ["-e", "process.stderr.write('cannot start: missing API_KEY\\n'); process.exit(3)"],
      env: {},
    });
    await supervisor.start("crashy");
    await expect.poll(() => count("permanently_failed"), { timeout: 15_000 }).toBe(1);
    expect(count("started")).toBe(3);
    expect(count("crashed")).toBe(3);
    const crash = events.find((e) => e.type === "crashed");
    expect(crash).toMatchObject({ exitCode: 3, signal: null, stderrTail: "cannot start: missing API_KEY" });
    await expect(supervisor.connect("crashy")).rejects.toThrow(/explicit restart/);
    expect(count("started")).toBe(3);
  });

  it("kills the whole process tree on stop", async () => {
    const { supervisor } = supervise({
      transport: "stdio",
      command: "/bin/sh",
      args: ["-c", "sleep 600 & echo child=$! >&2; wait"],
      env: {},
    });
    await supervisor.start("tree");
    const parent = supervisor.state("tree").pid;
    await expect.poll(() => /child=(\d+)/.exec(supervisor.state("tree").stderrTail)?.[1]).toBeDefined();
    const child = Number(/child=(\d+)/.exec(supervisor.state("tree").stderrTail)?.[1]);
    expect(parent).not.toBeNull();
    expect(alive(child)).toBe(true);

    await supervisor.stop("tree");
    await expect.poll(() => alive(child)).toBe(false);
    await expect.poll(() => alive(parent ?? 0)).toBe(false);
  });

  it("gives the pool a connection to the process and survives a crash of it", async () => {
    const { supervisor, count } = supervise(everything);
    const pool = new ConnectionPool({ resolve: async (id) => ({ connector: () => supervisor.connect(id) }) });
    cleanups.push(() => pool.closeAll());
    const connection = await pool.get("ev");
    const first = await connection.callTool({ name: "echo", arguments: { message: "one" } });
    expect(JSON.stringify(first.content)).toContain("one");

    const pid = supervisor.state("ev").pid ?? 0;
    process.kill(-pid, "SIGKILL");
    await expect.poll(() => count("started")).toBe(2);
    expect(count("crashed")).toBe(1);
    const { value, attempts } = await withRetry(
      async () => (await pool.get("ev")).callTool({ name: "echo", arguments: { message: "two" } }),
      { sleep: async () => {} },
    );
    expect(JSON.stringify(value.content)).toContain("two");
    expect(attempts).toBeLessThanOrEqual(2);
  });

  it("stops an idle process and starts it again on the next call", async () => {
    const { supervisor, count } = supervise(everything, { idleStopMs: 300 });
    const pool = new ConnectionPool({ resolve: async (id) => ({ connector: () => supervisor.connect(id) }) });
    cleanups.push(() => pool.closeAll());
    const connection = await pool.get("ev");
    await connection.callTool({ name: "echo", arguments: { message: "one" } });
    const firstPid = supervisor.state("ev").pid ?? 0;
    await expect.poll(() => count("idle_stopped"), { timeout: 10_000 }).toBe(1);
    expect(supervisor.state("ev").running).toBe(false);
    await expect.poll(() => alive(firstPid)).toBe(false);

    const again = await connection.callTool({ name: "echo", arguments: { message: "two" } });
    expect(JSON.stringify(again.content)).toContain("two");
    expect(count("started")).toBe(2);
    expect(count("crashed")).toBe(0);
  });
});
