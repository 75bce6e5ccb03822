import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { waitUntil } from "@switchboard/testing/wait";
import { forwardRequest } from "../src/console/forward";
import { startConsole, type ConsoleProcess } from "../src/console/next-process";

const script = path.join(import.meta.dirname, "support/tiny-console.mjs");
const command = () => ({ file: process.execPath, args: [script] });
const started: ConsoleProcess[] = [];
const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((c) => c.stop()));
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

const alive = (pid: number | undefined) => {
  try {
    process.kill(pid!, 0);
    return true;
  } catch {
    return false;
  }
};

async function front(console_: ConsoleProcess): Promise<string> {
  const server = createServer((req, res) => forwardRequest(console_, req, res));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("the console child process", () => {
  it("ends when the gateway is killed outright (SIGKILL), instead of staying with parent pid 1", async () => {
    const parent = spawn(
      process.execPath,
      ["--import", "tsx", path.join(import.meta.dirname, "support/console-parent.ts")],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const pid = await new Promise<number>((resolve) =>
      parent.stdout.once("data", (d: Buffer) => resolve(Number(String(d).trim()))),
    );
    expect(alive(pid)).toBe(true);
    parent.kill("SIGKILL");
    await waitUntil(() => !alive(pid), "the console child to end after its gateway", 10_000, 50).finally(() => {
      if (alive(pid)) process.kill(pid, "SIGKILL");
    });
  }, 30_000);

  it("starts it, and when it dies starts it again on the same port while the front answers 502 in between", async () => {
    const restarts: Array<{ signal: string | null }> = [];
    const console_ = await startConsole({
      dir: process.cwd(),
      dev: false,
      command,
      backoff: { minMs: 300, maxMs: 1_000 },
      onRestart: (i) => void restarts.push(i),
    });
    started.push(console_);
    const url = await front(console_);
    const first = (await (await fetch(url)).json()) as { pid: number };
    expect(first.pid).toBe(console_.pid);

    process.kill(first.pid, "SIGKILL");
    await expect.poll(() => alive(first.pid)).toBe(false);
    const during = await fetch(url);
    expect(during.status).toBe(502);
    expect(during.headers.get("retry-after")).toBe("2");

    await expect.poll(async () => (await fetch(url)).status, { timeout: 10_000, interval: 100 }).toBe(200);
    const second = (await (await fetch(url)).json()) as { pid: number };
    expect(second.pid).not.toBe(first.pid);
    expect(console_.restarts).toBe(1);
    expect(restarts).toEqual([expect.objectContaining({ signal: "SIGKILL", delayMs: 300 })]);
  });

  it("fails the start with the exit code when the console cannot start, without trying again", async () => {
    let restarted = 0;
    const failing = () => ({ file: process.execPath, args: [script, "fail"] });
    await expect(
      startConsole({
        dir: process.cwd(),
        dev: false,
        command: failing,
        backoff: { minMs: 50, maxMs: 50 },
        onRestart: () => void restarted++,
      }),
    ).rejects.toThrow(/exited during start \(3\)/);
    // The start fails once it sees the child's exit code, which Node sets in the same step as it runs the exit
    // listeners: the supervisor has already decided, and a restart is announced (onRestart) when it is decided.
    expect(restarted).toBe(0);
  });

  it("stops it for good: the process is gone and is not started again", async () => {
    let restarted = 0;
    const console_ = await startConsole({
      dir: process.cwd(),
      dev: false,
      command,
      backoff: { minMs: 50, maxMs: 50 },
      onRestart: () => void restarted++,
    });
    const pid = console_.pid;
    await console_.stop();
    expect(alive(pid)).toBe(false);
    // stop() resolves on the exit event, after the supervisor's exit listener ran: a restart would be announced.
    expect(restarted).toBe(0);
    expect(console_.restarts).toBe(0);
  });
});
