import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { describeProcesses } from "@switchboard/testing/processes";
import { stdioCycles } from "./support/stdio-cycles";

/**
 * `npm run chaos`'s stdio drill at CI scale: a few start/stop cycles through the supervisor in the sandbox (some
 * killed during set-up), two sandbox hosts SIGKILLed (during the outbound probe, during a sandbox's set-up), then
 * a host started again as the worker would be. A real process listing must find nothing left of any of them.
 */
describe("stdio servers started and stopped, some killed mid-way", () => {
  it("leaves no sandbox or server process behind, and every cycle ends", async () => {
    const result = await stdioCycles({ cycles: 10, hostKills: 2, parallel: 2 });
    expect(describeProcesses(result.orphans)).toBe("");
    expect(result).toMatchObject({ hung: 0, failed: 0, attempted: 12, succeeded: 12 });
  }, 120_000);
});

describe("on a host where pasta fails (no usable /dev/net/tun)", () => {
  it("leaves nothing of pasta behind: not after the start-up probe, nor after a worker killed during it", async () => {
    // What pasta does there: it forks the stub that would run the command, fails, and exits, the stub left waiting
    // with parent pid 1. This stand-in does the same (its stub is named pasta and names the sandbox's arguments, as
    // pasta's own does).
    const dir = mkdtempSync(path.join(os.tmpdir(), "sb-failing-pasta-"));
    chmodSync(dir, 0o755);
    const pasta = path.join(dir, "pasta");
    writeFileSync(
      pasta,
      `#!/bin/bash\n(exec -a pasta ${process.execPath} -e "setTimeout(() => {}, 600000)" -- pasta-stub "$@") &\necho "Failed to open tun socket in namespace" >&2\nexit 1\n`,
    );
    chmodSync(pasta, 0o755);
    try {
      const result = await stdioCycles({ cycles: 4, hostKills: 2, parallel: 2, pasta });
      expect(describeProcesses(result.orphans)).toBe("");
      expect(result.notes.join(" ")).toMatch(/outbound sandboxes \(pasta\) are not available/);
      expect(result).toMatchObject({ hung: 0, failed: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
