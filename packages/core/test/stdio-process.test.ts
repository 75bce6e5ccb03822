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
});
