import { afterEach, describe, expect, it } from "vitest";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import {
  groupAlive,
  processAlive,
  spawnStdioProcess,
  StdioLimitError,
  StdioSupervisor,
  type StdioLaunch,
  type StdioLimits,
  type StdioProcessHandle,
  type SupervisorEvent,
} from "../src/stdio";
import { ConnectionPool } from "../src/upstream";
import { classifyError } from "../src/policies";

/**
 * What a stdio server writes is untrusted. Each case runs a real child that misbehaves one way against the
 * transport (and the supervisor, and a pooled connection): the test process itself must live on (an escaping
 * exception would fail the run), the transport ends with a StdioLimitError naming the limit, and the process
 * group is stopped.
 */
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const node = (script: string): StdioLaunch => ({
  transport: "stdio",
  command: process.execPath,
  args: ["--input-type=module", "-e", script],
  env: {},
});

/** Stays up after misbehaving, so that only our kill ends it. */
const STAY = "setInterval(() => {}, 1000);";

async function attach(script: string, limits: Partial<StdioLimits> = {}) {
  const proc = await spawnStdioProcess(node(script), { limits });
  cleanups.push(() => proc.kill(200));
  const faults: StdioLimitError[] = [];
  const errors: Error[] = [];
  let closed = false;
  const transport = proc.createTransport({
    onFault: (error) => {
      faults.push(error);
      void proc.kill(500);
    },
  });
  transport.onerror = (error) => void errors.push(error);
  transport.onclose = () => void (closed = true);
  await transport.start();
  return { proc, transport, faults, errors, isClosed: () => closed };
}

/** Polls until `condition` holds (a deadline, no fixed sleep). */
const until = (condition: () => boolean) => expect.poll(condition, { timeout: 15_000, interval: 20 }).toBe(true);

async function expectStopped(proc: StdioProcessHandle) {
  await proc.exited;
  await until(() => !groupAlive(proc.pid));
}

describe("ProcessTransport against a hostile child process", () => {
  it("stops a server that writes 11 MiB without a newline, and the host lives on", async () => {
    const { proc, faults, isClosed } = await attach(
      `process.stdout.write(Buffer.alloc(11 * 1024 * 1024, 0x61)); ${STAY}`,
    );
    await until(() => faults.length > 0);
    expect(faults[0]!.kind).toBe("line_too_long");
    expect(faults[0]!.message).toBe("The server wrote a line over 10 MiB without a newline; it was stopped.");
    expect(isClosed()).toBe(true);
    await expectStopped(proc);
  });

  it("stops a server that floods messages", async () => {
    const note = JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "info", data: "x" },
    });
    const { proc, faults } = await attach(
      `const line = ${JSON.stringify(note + "\n")}; const burst = line.repeat(1000);` +
        `const go = () => process.stdout.write(burst, go); go();`,
    );
    await until(() => faults.length > 0);
    expect(faults[0]!.message).toBe("The server wrote more than 10,000 messages in 10 seconds; it was stopped.");
    await expectStopped(proc);
  });

  it("stops a server that writes more bytes than the window allows", async () => {
    const { proc, faults } = await attach(
      `const chunk = Buffer.alloc(256 * 1024, 0x20); const go = () => process.stdout.write(chunk, go); go();`,
      { maxBytesPerWindow: 4 * 1024 * 1024, windowMs: 60_000 },
    );
    await until(() => faults.length > 0);
    expect(faults[0]!.kind).toBe("too_much_output");
    expect(faults[0]!.message).toBe("The server wrote more than 4 MiB in 60 seconds; it was stopped.");
    await expectStopped(proc);
  });

  it("tolerates a few stray lines but stops a server that writes binary garbage", async () => {
    const { proc, faults, errors } = await attach(
      `import { randomBytes } from "node:crypto"; process.stdout.write("Server starting...\\n");` +
        `const go = () => process.stdout.write(randomBytes(64 * 1024), go); go();`,
    );
    await until(() => faults.length > 0);
    expect(faults[0]!.kind).toBe("not_mcp");
    expect(faults[0]!.message).toBe(
      "The server wrote more than 1,000 lines that are not MCP messages in 10 seconds; it was stopped.",
    );
    // The lines before the limit were reported as parse errors, one each, as the SDK's own transport does.
    expect(errors.length).toBeGreaterThan(1_000);
    await expectStopped(proc);
  });

  it("stops a server that closes its output and keeps running", async () => {
    const { proc, faults } = await attach(`import { closeSync } from "node:fs"; closeSync(1); ${STAY}`, {
      closedPipeGraceMs: 200,
    });
    await until(() => faults.length > 0);
    expect(faults[0]!.message).toBe("The server closed its output but kept running; it was stopped.");
    await expectStopped(proc);
  });

  it("reports a server that closes its output and exits as an exit, not as a limit", async () => {
    const { proc, faults, isClosed } = await attach(
      `import { closeSync } from "node:fs"; closeSync(1); setTimeout(() => process.exit(4), 50);`,
      {
        closedPipeGraceMs: 2_000,
      },
    );
    expect((await proc.exited).exitCode).toBe(4);
    await until(isClosed);
    expect(faults).toEqual([]);
  });

  it("stops a server that never reads its input once what waits for it passes the bound", async () => {
    const { proc, transport, faults } = await attach(`process.stdin.pause(); ${STAY}`, {
      maxPendingInputBytes: 1024 * 1024,
    });
    const big = (id: number): JSONRPCMessage => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "x".repeat(400 * 1024) } },
    });
    // The pipe takes 64 KiB; the rest waits in our memory, up to the bound.
    const sends = [1, 2, 3, 4].map((id) => transport.send(big(id)).catch((error: unknown) => error));
    const refused = await transport.send(big(5)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StdioLimitError);
    expect((refused as Error).message).toBe(
      "The server stopped reading its input (over 1 MiB waiting); it was stopped.",
    );
    expect(faults.map((f) => f.kind)).toEqual(["input_not_read"]);
    // Sends that waited for the pipe to drain are released, not left hanging.
    await Promise.all(sends);
    await expectStopped(proc);
  });
});

describe("the supervisor and a pooled connection on a server that breaks a limit", () => {
  it("fails the request with the limit's sentence, stops the group without counting a crash, and starts afresh", async () => {
    // An MCP server (SDK 1.x) whose tool answers with 11 MiB that never end in a newline.
    const script =
      `import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";` +
      `import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";` +
      `const server = new McpServer({ name: "hostile", version: "1.0.0" });` +
      `server.registerTool("flood", { description: "d" }, async () => {` +
      `  process.stdout.write(Buffer.alloc(11 * 1024 * 1024, 0x61)); return new Promise(() => {}); });` +
      `server.registerTool("calm", { description: "d" }, async () => ({ content: [{ type: "text", text: "calm" }] }));` +
      `await server.connect(new StdioServerTransport());`;
    const launch = { ...node(script), cwd: import.meta.dirname };
    const events: SupervisorEvent[] = [];
    const supervisor = new StdioSupervisor({
      resolveLaunch: async () => launch,
      onEvent: (e) => void events.push(e),
      killGraceMs: 500,
    });
    cleanups.push(() => supervisor.closeAll());
    const pool = new ConnectionPool({ resolve: async (id) => ({ connector: () => supervisor.connect(id) }) });
    cleanups.push(() => pool.closeAll());

    const connection = await pool.get("hostile");
    const pid = supervisor.state("hostile").pid!;
    const failure = await connection.callTool({ name: "flood", arguments: {} }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StdioLimitError);
    expect(classifyError(failure)).toMatchObject({
      status: "error",
      retryable: false,
      kind: "limit_exceeded",
      message: "The server wrote a line over 10 MiB without a newline; it was stopped.",
    });

    await until(() => events.some((e) => e.type === "faulted"));
    expect(events.find((e) => e.type === "faulted")).toMatchObject({
      instanceId: "hostile",
      limit: "line_too_long",
      message: "The server wrote a line over 10 MiB without a newline; it was stopped.",
    });
    expect(processAlive(pid)).toBe(false);
    expect(groupAlive(pid)).toBe(false);
    expect(events.filter((e) => e.type === "crashed")).toEqual([]);
    expect(supervisor.state("hostile")).toMatchObject({ running: false, crashesInWindow: 0 });

    // The next request starts a fresh process, which serves.
    const again = await (await pool.get("hostile")).callTool({ name: "calm", arguments: {} });
    expect(JSON.stringify(again.content)).toContain("calm");
    expect(supervisor.state("hostile").pid).not.toBe(pid);
  });
});
