import { randomBytes } from "node:crypto";
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";

/**
 * One cgroup per sandbox launch, so memory and process count hold for the sandbox as a whole rather than for each
 * of its processes. Two backends: cgroup v2 where the host delegates the worker's cgroup to it (systemd
 * `Delegate=yes`, a container's own cgroup namespace), and the v1 `memory` and `pids` hierarchies where the
 * worker may create cgroups below its own (root on a v1 or hybrid host). The launch joins its cgroup itself,
 * before anything else runs (core buildSandboxedCommand); the worker removes cgroups once they are empty.
 */
export interface SandboxCgroups {
  readonly version: "v1" | "v2";
  /** A new cgroup for one launch with these limits: the `cgroup.procs` files the launch writes itself into. */
  create(name: string, limits: { memoryMb: number; processes: number }): string[];
  /**
   * Removes the empty cgroups of finished launches (and of an earlier worker's), never one just made, unless
   * `all` (the worker stops: what it made and is empty is done with).
   */
  sweep(all?: boolean): void;
}

/** Below the worker's own cgroup in every hierarchy used. */
const PARENT = "switchboard-sandboxes";
/**
 * A cgroup made this recently may not have been joined yet (by this worker or another one sharing the parent): a
 * sweep leaves it alone. Its directory's mtime is when it was made.
 */
const JOIN_GRACE_MS = 60_000;
const MIB = 1024 * 1024;

/** What /proc/self/mountinfo and /proc/self/cgroup say (tests pass other text). */
export interface CgroupSources {
  mountinfo: string;
  cgroup: string;
}

function readSources(): CgroupSources {
  return {
    mountinfo: readFileSync("/proc/self/mountinfo", "utf8"),
    cgroup: readFileSync("/proc/self/cgroup", "utf8"),
  };
}

/** Mount points of cgroup file systems: v1 by controller (from the super options), v2 as `unified`. */
export function cgroupMounts(mountinfo: string): { v1: Map<string, string>; v2?: string } {
  const v1 = new Map<string, string>();
  let v2: string | undefined;
  for (const line of mountinfo.split("\n")) {
    const [before, after] = line.split(" - ");
    if (!before || !after) continue;
    const mountPoint = before.split(" ")[4];
    const [fsType, , superOptions = ""] = after.split(" ");
    if (!mountPoint) continue;
    if (fsType === "cgroup2") v2 ??= mountPoint;
    else if (fsType === "cgroup")
      for (const option of superOptions.split(",")) if (!v1.has(option)) v1.set(option, mountPoint);
  }
  return { v1, v2 };
}

/** The worker's own cgroup path in each hierarchy: v1 by controller, v2 under `""`. */
export function ownCgroups(cgroup: string): Map<string, string> {
  const own = new Map<string, string>();
  for (const line of cgroup.split("\n")) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line.trim());
    if (!match) continue;
    for (const controller of match[1]!.split(",")) own.set(controller, match[2]!);
  }
  return own;
}

const canWrite = (file: string) => {
  try {
    accessSync(file, constants.W_OK);
    return true;
  } catch {
    return false;
  }
};

class Cgroups implements SandboxCgroups {
  /** The cgroups this worker made (a stopping worker removes its own empty ones, however young). */
  private readonly mine = new Set<string>();

  constructor(
    readonly version: "v1" | "v2",
    /** The parent directories, one per hierarchy (v1: memory, pids; v2: one). */
    private readonly parents: { memory: string; pids: string },
  ) {}

  create(name: string, limits: { memoryMb: number; processes: number }): string[] {
    this.sweep();
    const id = `${name}-${randomBytes(4).toString("hex")}`;
    const dirs = [...new Set([this.parents.memory, this.parents.pids])].map((parent) => path.join(parent, id));
    for (const dir of dirs) {
      mkdirSync(dir);
      this.mine.add(dir);
    }
    const memory = path.join(this.parents.memory, id);
    const pids = path.join(this.parents.pids, id);
    const bytes = String(limits.memoryMb * MIB);
    if (this.version === "v1") {
      writeFileSync(path.join(memory, "memory.limit_in_bytes"), bytes);
      // Without swap accounting the file is absent; with it, the sandbox may not swap past its limit either.
      if (existsSync(path.join(memory, "memory.memsw.limit_in_bytes")))
        writeFileSync(path.join(memory, "memory.memsw.limit_in_bytes"), bytes);
    } else {
      writeFileSync(path.join(memory, "memory.max"), bytes);
      if (existsSync(path.join(memory, "memory.swap.max"))) writeFileSync(path.join(memory, "memory.swap.max"), "0");
    }
    writeFileSync(path.join(pids, "pids.max"), String(limits.processes));
    return dirs.map((dir) => path.join(dir, "cgroup.procs"));
  }

  sweep(all = false): void {
    const now = Date.now();
    for (const parent of new Set([this.parents.memory, this.parents.pids])) {
      let entries: string[];
      try {
        entries = readdirSync(parent, { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => e.name);
      } catch {
        continue;
      }
      for (const entry of entries) {
        const dir = path.join(parent, entry);
        try {
          if (!(all && this.mine.has(dir)) && now - statSync(dir).mtimeMs < JOIN_GRACE_MS) continue;
          if (readFileSync(path.join(dir, "cgroup.procs"), "utf8").trim() !== "") continue;
          rmdirSync(dir); // EBUSY when a process joined since: it stays for the next sweep
          this.mine.delete(dir);
        } catch {
          // in use, or already gone
        }
      }
    }
  }
}

/**
 * The cgroups sandboxes can get on this host, or why not (one sentence for the console). v1 is used where the
 * worker can make cgroups in both the `memory` and the `pids` hierarchy; else v2 where its cgroup is delegated.
 */
export function detectCgroups(sources: CgroupSources = readSources()): SandboxCgroups | { reason: string } {
  const mounts = cgroupMounts(sources.mountinfo);
  const own = ownCgroups(sources.cgroup);
  const v1Memory = mounts.v1.get("memory");
  const v1Pids = mounts.v1.get("pids");
  let v1Reason: string | undefined;
  if (v1Memory && v1Pids && own.has("memory") && own.has("pids")) {
    try {
      const parents = {
        memory: path.join(v1Memory, own.get("memory")!, PARENT),
        pids: path.join(v1Pids, own.get("pids")!, PARENT),
      };
      for (const dir of Object.values(parents)) mkdirSync(dir, { recursive: true });
      return probe(new Cgroups("v1", parents));
    } catch (error) {
      v1Reason = `the worker cannot create cgroups in the v1 memory and pids hierarchies (${message(error)})`;
    }
  }
  if (mounts.v2 && own.has("")) {
    const v2 = delegatedV2(path.join(mounts.v2, own.get("")!), own.get("") === "/");
    if (!("reason" in v2)) return v2;
    return { reason: v1Reason ? `${v1Reason}, and ${v2.reason}` : v2.reason };
  }
  return { reason: v1Reason ?? "this host has no cgroup file system the worker can use." };
}

/** A v2 cgroup the worker may manage: it moves itself into a leaf and enables memory and pids below. */
function delegatedV2(own: string, isRoot: boolean): SandboxCgroups | { reason: string } {
  const controllers = readFileSync(path.join(own, "cgroup.controllers"), "utf8").trim().split(/\s+/);
  const missing = ["memory", "pids"].filter((c) => !controllers.includes(c));
  if (missing.length > 0)
    return {
      reason: `the worker's cgroup v2 has no ${missing.join(" or ")} controller (not delegated to it, or bound to a v1 hierarchy).`,
    };
  if (![own, path.join(own, "cgroup.procs"), path.join(own, "cgroup.subtree_control")].every(canWrite))
    return { reason: "the worker's cgroup v2 is not delegated to its user (systemd Delegate=yes, or run it as root)." };
  try {
    const enable = (dir: string) => writeFileSync(path.join(dir, "cgroup.subtree_control"), "+memory +pids");
    // A v2 cgroup with controllers enabled below may hold no process itself (unless it is the root): the
    // worker's own processes move into a leaf first.
    if (!isRoot) {
      const leaf = path.join(own, "worker");
      mkdirSync(leaf, { recursive: true });
      for (const pid of readFileSync(path.join(own, "cgroup.procs"), "utf8").split("\n").filter(Boolean))
        writeFileSync(path.join(leaf, "cgroup.procs"), pid);
    }
    enable(own);
    const parent = path.join(own, PARENT);
    mkdirSync(parent, { recursive: true });
    enable(parent);
    return probe(new Cgroups("v2", { memory: parent, pids: parent }));
  } catch (error) {
    return { reason: `the worker cannot set up its cgroup v2 for sandboxes (${message(error)}).` };
  }
}

/** Makes and removes one cgroup with limits, so a host that refuses either fails here and not at a launch. */
function probe(cgroups: Cgroups): Cgroups {
  cgroups.create("probe", { memoryMb: 64, processes: 8 });
  cgroups.sweep(true);
  return cgroups;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
