import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";

/**
 * The disk quota of an instance: its home and /tmp live on an ext4 file system of the quota's size, an image file
 * loop-mounted by the worker (which must be root for it). A write past the quota gets ENOSPC inside the sandbox,
 * and what the sandbox sees of the mount (mountinfo) is that file system's own paths, not the host's.
 *
 *   <instance dir>/disk.img     the image (sparse: it takes on the host only what the server wrote)
 *   <instance dir>/volume       its mount point, holding home/ and tmp/
 */
export interface VolumeTools {
  mount: string;
  umount: string;
  mkfs: string;
  e2fsck?: string;
  resize2fs?: string;
}

const MIB = 1024 * 1024;

export function volumePaths(instanceDir: string) {
  const mountPoint = path.join(instanceDir, "volume");
  return {
    image: path.join(instanceDir, "disk.img"),
    mountPoint,
    home: path.join(mountPoint, "home"),
    tmp: path.join(mountPoint, "tmp"),
  };
}

/** Whether something is mounted at that directory (this worker's mount namespace). */
export function isMounted(dir: string): boolean {
  const wanted = path.resolve(dir);
  return readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .some((line) => unescapeMountPath(line.split(" ")[4] ?? "") === wanted);
}

const unescapeMountPath = (p: string) =>
  p.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

const run = (file: string, args: string[]) => execFileSync(file, args, { stdio: ["ignore", "ignore", "pipe"] });

function makeImage(tools: VolumeTools, image: string, sizeMb: number, owner: { uid: number; gid: number }): void {
  writeFileSync(image, "", { mode: 0o600 });
  truncateSync(image, sizeMb * MIB);
  // No blocks reserved for root: the quota is what the server gets.
  run(tools.mkfs, ["-q", "-F", "-m", "0", "-E", `root_owner=${owner.uid}:${owner.gid}`, image]);
}

/**
 * Brings an unmounted image to the quota's size: growing always works; shrinking only while what is stored
 * fits (resize2fs refuses otherwise, and the image keeps its size until it does).
 */
function resize(tools: VolumeTools, image: string, sizeMb: number): string | undefined {
  const current = statSync(image).size;
  const wanted = sizeMb * MIB;
  if (current === wanted) return undefined;
  if (!tools.e2fsck || !tools.resize2fs) return "e2fsck/resize2fs missing (e2fsprogs)";
  try {
    if (wanted > current) truncateSync(image, wanted);
    run(tools.e2fsck, ["-f", "-p", image]);
    run(tools.resize2fs, [image, `${sizeMb}M`]);
    if (wanted < current) truncateSync(image, wanted);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.split("\n")[0] : String(error);
  }
}

/**
 * Mounts the instance's file system (made on first use, resized to the quota when not in use) and returns its
 * home and tmp, owned by the instance's host user. An earlier layout's home and tmp directories move into it.
 * Throws with a readable reason when they do not fit.
 */
export function ensureVolume(
  tools: VolumeTools,
  instanceDir: string,
  sizeMb: number,
  owner: { uid: number; gid: number },
  warn: (message: string) => void,
): { home: string; tmp: string } {
  const paths = volumePaths(instanceDir);
  mkdirSync(paths.mountPoint, { recursive: true, mode: 0o700 });
  if (isMounted(paths.mountPoint)) {
    // In use by a running process of the instance, or left by an earlier worker: a new size waits for a remount.
    try {
      run(tools.umount, [paths.mountPoint]);
    } catch {
      return { home: paths.home, tmp: paths.tmp };
    }
  }
  if (!existsSync(paths.image)) makeImage(tools, paths.image, sizeMb, owner);
  else {
    const failed = resize(tools, paths.image, sizeMb);
    if (failed) warn(`disk quota not changed to ${sizeMb} MB (the stored files do not fit, or ${failed})`);
  }
  run(tools.mount, ["-o", "loop,nosuid,nodev", paths.image, paths.mountPoint]);
  for (const [dir, old] of [
    [paths.home, path.join(instanceDir, "home")],
    [paths.tmp, path.join(instanceDir, "tmp")],
  ] as const) {
    if (existsSync(old) && !existsSync(dir)) {
      try {
        execFileSync("cp", ["-a", "--", `${old}/.`, dir]);
      } catch {
        rmSync(dir, { recursive: true, force: true });
        run(tools.umount, [paths.mountPoint]);
        throw new Error(
          `This instance's files in ${path.basename(old)} do not fit its disk quota of ${sizeMb} MB: an admin can raise the quota in the installation's sandbox settings.`,
        );
      }
      rmSync(old, { recursive: true, force: true });
    }
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  return { home: paths.home, tmp: paths.tmp };
}

/** Detaches the instance's file system (lazily: a process still in it keeps it until it exits). */
export function releaseVolume(tools: VolumeTools, instanceDir: string): void {
  const { mountPoint } = volumePaths(instanceDir);
  if (!isMounted(mountPoint)) return;
  try {
    run(tools.umount, ["-l", mountPoint]);
  } catch {
    // already gone
  }
}

const PROBE_DIR = /^volume-probe-(\d+)$/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The probe directories of workers that died during their probe (killed between the mount and its release): their
 * file system stays mounted on a loop device until somebody detaches it, so the next start does.
 */
export function releaseDeadProbes(tools: VolumeTools, dataDir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dataDir);
  } catch {
    return [];
  }
  const released: string[] = [];
  for (const entry of entries) {
    const pid = Number(PROBE_DIR.exec(entry)?.[1] ?? NaN);
    if (!Number.isInteger(pid) || (pid !== process.pid && alive(pid))) continue;
    const dir = path.join(dataDir, entry);
    releaseVolume(tools, dir);
    rmSync(dir, { recursive: true, force: true });
    released.push(dir);
  }
  return released;
}

/** Whether this worker can give instances a disk quota: a small image made, mounted, written and removed. */
export function probeVolumes(tools: VolumeTools | undefined, dataDir: string): { ok: true } | { reason: string } {
  if (process.getuid?.() !== 0)
    return {
      reason: "a file system per instance needs the worker to run as root (mount), and this worker is not root.",
    };
  if (!tools) return { reason: "mkfs.ext4 (e2fsprogs) or mount (util-linux) is not installed." };
  releaseDeadProbes(tools, dataDir);
  const dir = path.join(dataDir, `volume-probe-${process.pid}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const { home } = ensureVolume(tools, dir, 16, { uid: 0, gid: 0 }, () => undefined);
    writeFileSync(path.join(home, "probe"), "probe");
    return { ok: true };
  } catch (error) {
    return {
      reason: `the worker cannot loop-mount a file system here (${error instanceof Error ? error.message.split("\n")[0] : String(error)}).`,
    };
  } finally {
    releaseVolume(tools, dir);
    rmSync(dir, { recursive: true, force: true });
  }
}
