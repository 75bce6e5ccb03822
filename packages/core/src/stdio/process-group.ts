import { readdirSync, readFileSync } from "node:fs";

/**
 * Kill a whole process tree by signalling its process group. Servers launched through `npx`, `uvx` or a shell
 * start children that survive when only the direct child is killed, so every stdio server is spawned detached
 * (its own group, pgid = pid) and stopped through the group.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: the group is already gone
  }
}

/** `state` and `pgrp` from /proc/<pid>/stat, or undefined when the process (or /proc) is not there. */
function procStat(pid: string | number): { state: string; pgrp: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid pgrp ..."; comm may contain spaces and parentheses, so split after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0] ?? "", pgrp: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

const hasProc = (() => {
  try {
    readdirSync("/proc/self");
    return true;
  } catch {
    return false;
  }
})();

/**
 * Whether any live process is left in the group. Zombies do not count: a child orphaned by the kill is reaped
 * by init, which may take its time (seconds in some containers), and a zombie holds nothing.
 */
export function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  if (!hasProc) return true;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(entry);
    if (stat && stat.pgrp === pgid && stat.state !== "Z" && stat.state !== "X") return true;
  }
  return false;
}

/** Whether a single process is running (not gone, not a zombie). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = hasProc ? procStat(pid) : undefined;
  return stat === undefined ? !hasProc : stat.state !== "Z" && stat.state !== "X";
}

/** SIGTERM the group, wait up to `graceMs` for it to disappear, then SIGKILL whatever is left. */
export async function killGroup(pgid: number, graceMs: number, pollMs = 25): Promise<void> {
  if (!signalGroup(pgid, "SIGTERM")) return;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!groupAlive(pgid)) return;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  signalGroup(pgid, "SIGKILL");
}

/**
 * Process groups this process started detached (stdio servers, sandbox probes) and that must not outlive it. A
 * detached group hears nothing from the terminal (Ctrl-C signals the foreground group only) and is not killed
 * with its parent, so whatever of them still runs when this process exits is killed then. While nothing else
 * handles SIGINT, SIGTERM or SIGHUP (a worker still starting, before its shutdown handlers exist), such a signal
 * first kills them and then this process, of that same signal, as it would have died without the listener.
 */
const ownedGroups = new Set<number>();
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
let listening = false;

function killOwnedGroups(): void {
  for (const pgid of ownedGroups) signalGroup(pgid, "SIGKILL");
  ownedGroups.clear();
}

function onStopSignal(signal: NodeJS.Signals): void {
  // The process handles the signal itself (its shutdown stops its groups; what is left goes at exit).
  if (process.listenerCount(signal) > 1) return;
  killOwnedGroups();
  stopListening();
  process.kill(process.pid, signal);
}

function stopListening(): void {
  if (!listening) return;
  listening = false;
  process.off("exit", killOwnedGroups);
  for (const signal of STOP_SIGNALS) process.off(signal, onStopSignal);
}

/** Kills the group `pgid` with this process if it is still there then; the returned function lets it go. */
export function killWithThisProcess(pgid: number): () => void {
  ownedGroups.add(pgid);
  if (!listening) {
    listening = true;
    process.on("exit", killOwnedGroups);
    for (const signal of STOP_SIGNALS) process.on(signal, onStopSignal);
  }
  return () => {
    ownedGroups.delete(pgid);
    if (ownedGroups.size === 0) stopListening();
  };
}
