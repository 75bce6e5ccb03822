/**
 * A worker killed during its start-up volume probe (between the mount and its release) left the probe's file
 * system mounted on a loop device under the data directory, for good: the stdio-cycles drill met one in CI, its
 * directory then impossible to remove (EBUSY). The next worker's probe releases what dead workers left.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findHostTools } from "../src/sandbox/host";
import { isMounted, probeVolumes, releaseVolume, type VolumeTools } from "../src/sandbox/volume";

const host = findHostTools();
const tools: VolumeTools | undefined =
  host.mkfs && host.mount && host.umount ? { mkfs: host.mkfs, mount: host.mount, umount: host.umount } : undefined;
const asRoot = process.getuid?.() === 0 && tools !== undefined;
const dataDir = mkdtempSync(path.join(os.tmpdir(), "sb-volume-probe-"));
const VOLUME = path.resolve(import.meta.dirname, "../src/sandbox/volume.ts");

afterAll(() => {
  for (const line of readFileSync("/proc/self/mountinfo", "utf8").split("\n")) {
    const at = line.split(" ")[4] ?? "";
    if (at.startsWith(dataDir)) releaseVolume(tools!, path.dirname(at));
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const mountsUnder = (dir: string) =>
  readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .filter((line) => (line.split(" ")[4] ?? "").startsWith(dir));

describe.skipIf(!asRoot)("the start-up volume probe", () => {
  it("releases and removes what a worker killed during its probe left mounted, and leaves a live worker's alone", async () => {
    // A worker that mounts its probe volume and is SIGKILLed before releasing it.
    const script = `
      import { ensureVolume } from ${JSON.stringify(VOLUME)};
      import path from "node:path";
      const tools = ${JSON.stringify(tools)};
      ensureVolume(tools, path.join(${JSON.stringify(dataDir)}, "volume-probe-" + process.pid), 16, { uid: 0, gid: 0 }, () => undefined);
      process.stdout.write("mounted\\n");
      setInterval(() => {}, 60_000);
    `;
    const dead = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve, reject) => {
      dead.stdout!.on("data", (d: Buffer) => String(d).includes("mounted") && resolve());
      dead.once("exit", (code) => reject(new Error(`the probing worker exited (${code}) before mounting`)));
    });
    dead.kill("SIGKILL");
    await new Promise((resolve) => dead.once("exit", resolve));
    const leftover = path.join(dataDir, `volume-probe-${dead.pid}`);
    expect(isMounted(path.join(leftover, "volume"))).toBe(true);

    // Another worker that is alive, its probe under way: not ours to touch.
    const live = path.join(dataDir, `volume-probe-${process.ppid}`);
    mkdirSync(live, { recursive: true });

    expect(probeVolumes(tools, dataDir)).toEqual({ ok: true });
    expect(isMounted(path.join(leftover, "volume"))).toBe(false);
    expect(existsSync(leftover)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(mountsUnder(dataDir)).toEqual([]);
    rmSync(dataDir, { recursive: true, force: false });
  });
});
