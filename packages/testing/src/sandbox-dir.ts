import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";

/**
 * Removes a worker's sandbox directory. A worker running as root mounts each instance's file system (its disk
 * quota) below it; a worker that was killed leaves them mounted, and removing a mount point fails, so every
 * mount below the directory is detached first.
 */
export function removeSandboxDir(dir: string): void {
  const root = path.resolve(dir);
  const mounts = readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((line) =>
      (line.split(" ")[4] ?? "").replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))),
    )
    .filter((mountPoint) => mountPoint.startsWith(`${root}/`))
    .sort((a, b) => b.length - a.length);
  for (const mountPoint of mounts) {
    try {
      execFileSync("umount", ["-l", mountPoint], { stdio: "ignore" });
    } catch {
      // gone meanwhile
    }
  }
  rmSync(root, { recursive: true, force: true });
}
