import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { groupAlive, signalGroup } from "../src/stdio/process-group";

/**
 * Real processes: a parent starts a stdio server detached (its own process group, which the terminal's Ctrl-C
 * does not reach), then the parent is signalled as `npm run demo`'s Ctrl-C or an orchestrator would signal it.
 */
async function startParent(args: string[] = []) {
  const fixture = path.join(import.meta.dirname, "fixtures/detached-parent.ts");
  const parent = spawn(process.execPath, ["--import", "tsx", fixture, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    parent.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const serverPid = await new Promise<number>((resolve, reject) => {
    let out = "";
    parent.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("\n")) resolve(Number(out.trim()));
    });
    parent.once("exit", () => reject(new Error("the parent exited before starting its server")));
  });
  return { parent, exited, serverPid };
}

describe("a stdio server's process group and the process that started it", () => {
  it("dies with a parent that is stopped by a signal it does not handle, and the parent still dies of it", async () => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      const { parent, exited, serverPid } = await startParent();
      try {
        expect(groupAlive(serverPid)).toBe(true);
        parent.kill(signal);
        expect(await exited).toEqual({ code: null, signal });
        await expect.poll(() => groupAlive(serverPid), { timeout: 10_000 }).toBe(false);
      } finally {
        signalGroup(serverPid, "SIGKILL");
      }
    }
  }, 60_000);

  it("leaves a parent's own SIGTERM handling alone, and still goes when that parent exits", async () => {
    const { parent, exited, serverPid } = await startParent(["--handles"]);
    try {
      parent.kill("SIGTERM");
      expect(await exited).toEqual({ code: 0, signal: null });
      await expect.poll(() => groupAlive(serverPid), { timeout: 10_000 }).toBe(false);
    } finally {
      signalGroup(serverPid, "SIGKILL");
    }
  }, 60_000);
});
