import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

/** Every process whose command line contains the marker: the test's stdio servers and their sandbox wrappers. */
export function processesWith(marker: string): number[] {
  try {
    return execFileSync("pgrep", ["-f", marker], { encoding: "utf8" }).trim().split("\n").filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

const WRAPPERS = new Set(["setpriv", "pasta", "bwrap", "prlimit"]);

/** The servers themselves: the marker's processes minus the sandbox's setpriv, pasta, bwrap and prlimit. */
export function serverProcesses(marker: string): number[] {
  return processesWith(marker).filter((pid) => {
    try {
      const argv0 = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] ?? "";
      return !WRAPPERS.has(path.basename(argv0));
    } catch {
      return false; // gone meanwhile
    }
  });
}
