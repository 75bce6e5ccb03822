import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const WRAPPERS = new Set(["setpriv", "pasta", "pasta.avx2", "bwrap"]);

interface Proc {
  pid: number;
  ppid: number;
  argv: string[];
}

function listProcesses(): Proc[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return []; // no /proc: nothing to look at
  }
  const out: Proc[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] === "Z" || fields[0] === "X") continue;
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      out.push({ pid: Number(entry), ppid: Number(fields[1]), argv });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * Sandboxes an earlier worker left behind: a worker killed (SIGKILL, OOM) while pasta was setting up a sandbox
 * leaves pasta, or the stub it forks for the command, running with parent pid 1 for good (pasta has no
 * parent-death signal, and the stub never runs the command whose bwrap would have one). Found by their command
 * line, which names this worker's sandboxes directory, and their parent (init: nobody owns them any more), and
 * killed with what runs under them. A sandbox with a live parent (another worker's) is never touched.
 */
export function reapLeftoverSandboxes(dataDir: string): number[] {
  const marker = `${path.resolve(dataDir)}/`;
  const all = listProcesses();
  const roots = all.filter(
    (p) => p.ppid === 1 && WRAPPERS.has(path.basename(p.argv[0] ?? "")) && p.argv.some((a) => a.startsWith(marker)),
  );
  const doomed = new Set<number>();
  const walk = (pid: number) => {
    doomed.add(pid);
    for (const child of all) if (child.ppid === pid && !doomed.has(child.pid)) walk(child.pid);
  };
  for (const root of roots) walk(root.pid);
  for (const pid of doomed) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
  return [...doomed];
}
