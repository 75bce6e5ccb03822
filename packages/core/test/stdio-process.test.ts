import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signalGroup, spawnStdioProcess } from "../src/stdio";

/** Processes whose command line names the marker (pgrep exits 1 when none does). */
function processesWith(marker: string): number[] {
  try {
    return execFileSync("pgrep", ["-f", marker], { encoding: "utf8" }).trim().split("\n").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

describe("a spawned stdio process", () => {
  it("takes what it leaves in its process group along when it exits by itself", async () => {
    const marker = `left-behind-${randomBytes(4).toString("hex")}`;
    // A child in the same group that would outlive its parent (as pasta's namespace child does when pasta fails).
    const script = `require("node:child_process").spawn(process.execPath, ["-e", "setTimeout(() => {}, 300000)", "${marker}"], { stdio: "ignore" }); process.exit(3);`;
    const proc = await spawnStdioProcess({
      transport: "stdio",
      command: process.execPath,
      args: ["-e", script],
      env: {},
    });
    try {
      expect(await proc.exited).toEqual({ exitCode: 3, signal: null });
      await expect.poll(() => processesWith(marker), { timeout: 5_000 }).toEqual([]);
    } finally {
      signalGroup(proc.pid, "SIGKILL");
    }
  });

  it("reports its exit with the last words it wrote to stderr, however full the pipe was when it exited", async () => {
    // 256 kB of stderr (four pipe buffers) and then the line that says why: when "exit" arrives, the end of it may
    // still be in the pipe. Several runs, since the order of "exit" and the pipe's last bytes varies.
    const script = `process.stderr.write("x".repeat(256 * 1024) + "\\nwhy: giving up\\n", () => process.exit(3));`;
    for (let run = 0; run < 8; run++) {
      const proc = await spawnStdioProcess({
        transport: "stdio",
        command: process.execPath,
        args: ["-e", script],
        env: {},
      });
      try {
        expect(await proc.exited).toEqual({ exitCode: 3, signal: null });
        expect(proc.stderrTail()).toContain("why: giving up");
      } finally {
        signalGroup(proc.pid, "SIGKILL");
      }
    }
  });
});
