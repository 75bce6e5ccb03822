import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** One live process as /proc shows it. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** R, S, D, T...; zombies (Z) and dead (X) are left out of the table: they hold nothing. */
  state: string;
  argv: string[];
}

function readProcess(pid: number): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so split after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    return { pid, ppid: Number(fields[1]), pgid: Number(fields[2]), state: fields[0] ?? "", argv };
  } catch {
    return undefined; // gone meanwhile
  }
}

/** Every live (not zombie) process of the host, by pid: a real listing, as `ps` reads it. */
export function processTable(): Map<number, ProcessInfo> {
  const table = new Map<number, ProcessInfo>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readProcess(Number(entry));
    if (info && info.state !== "Z" && info.state !== "X") table.set(info.pid, info);
  }
  return table;
}

/** `pid`'s descendants in the table (children, their children...), not `pid` itself. */
export function descendants(pid: number, table = processTable()): ProcessInfo[] {
  const children = new Map<number, ProcessInfo[]>();
  for (const p of table.values()) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const out: ProcessInfo[] = [];
  const walk = (parent: number) => {
    for (const child of children.get(parent) ?? []) {
      out.push(child);
      walk(child.pid);
    }
  };
  walk(pid);
  return out;
}

/** Whether one of `p`'s ancestors is in `pids`. */
function hasAncestor(p: ProcessInfo, pids: ReadonlySet<number>, table: Map<number, ProcessInfo>): boolean {
  for (let cur = table.get(p.ppid); cur; cur = table.get(cur.ppid)) {
    if (pids.has(cur.pid)) return true;
    if (cur.pid <= 1) break;
  }
  return false;
}

const SANDBOX_WRAPPERS = new Set(["setpriv", "pasta", "pasta.avx2", "passt", "bwrap", "prlimit"]);

/** What kind of process an orphan is, for the report: the sandbox's wrappers by name, else "server". */
export function processKind(p: ProcessInfo): string {
  const name = path.basename(p.argv[0] ?? "");
  return SANDBOX_WRAPPERS.has(name) ? name : "server";
}

/**
 * Stdio servers and their sandbox processes (bwrap, pasta, setpriv, prlimit) that no live worker owns: every
 * process whose command line names `marker` (the sandboxes' data directory, which every bwrap and pasta command
 * line holds, or a fixture's path), and everything under one of them, whose chain of parents does not reach one
 * of `workers`. A server inside a sandbox names no marker itself; its bwrap parent does.
 */
export function orphanedProcesses(marker: string, workers: readonly number[], table = processTable()): ProcessInfo[] {
  const live = new Set(workers.filter((pid) => table.has(pid)));
  const marked = [...table.values()].filter((p) => p.pid !== process.pid && p.argv.some((a) => a.includes(marker)));
  const all = new Map<number, ProcessInfo>();
  for (const p of marked) {
    all.set(p.pid, p);
    for (const d of descendants(p.pid, table)) all.set(d.pid, d);
  }
  return [...all.values()].filter((p) => !live.has(p.pid) && !hasAncestor(p, live, table));
}

/** A one-line description of some processes, for a failure message or a report. */
export function describeProcesses(list: readonly ProcessInfo[]): string {
  return list
    .map((p) => `${p.pid} (${processKind(p)}, parent ${p.ppid}): ${p.argv.join(" ").slice(0, 160)}`)
    .join("\n");
}

/**
 * Every process whose command line contains the marker (as `pgrep -f` sees it): a test's stdio servers and their
 * sandbox wrappers.
 */
export function processesWith(marker: string): number[] {
  try {
    return execFileSync("pgrep", ["-f", marker], { encoding: "utf8" }).trim().split("\n").filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

/** The servers themselves: the marker's processes minus the sandbox's wrappers (setpriv, pasta, bwrap, prlimit...). */
export function serverProcesses(marker: string): number[] {
  return processesWith(marker).filter((pid) => {
    const p = readProcess(pid); // undefined: gone meanwhile
    return p !== undefined && processKind(p) === "server";
  });
}
