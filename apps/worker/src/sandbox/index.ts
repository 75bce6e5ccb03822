import { spawn } from "node:child_process";
import { randomBytes, randomInt } from "node:crypto";
import {
  accessSync,
  chmodSync,
  chownSync,
  constants,
  lchownSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  allowedLoopbackPorts,
  buildSandboxedCommand,
  describeSandboxEnforcement,
  grantLoopbackPorts,
  mergeReserved,
  resolveSandboxPolicy,
  SANDBOX_DEFAULTS,
  SANDBOX_DISK_MAX_MB,
  WELL_KNOWN_RESERVED_PORTS,
  type ReservedPort,
  type SandboxDirs,
  type SandboxEnforcement,
  type SandboxHost,
  type SandboxHostSupport,
  type SandboxPolicy,
} from "@switchboard/core/sandbox";
import { killWithThisProcess, signalGroup, type StdioLaunch } from "@switchboard/core/stdio";
import type { Logger } from "@switchboard/runtime/logger";
import { detectCgroups, type SandboxCgroups } from "./cgroup";
import {
  defaultReadOnlyPaths,
  findHostTools,
  hostLayout,
  sandboxPath,
  unsafeReadOnlyPath,
  type HostTools,
} from "./host";
import { reapLeftoverSandboxes } from "./leftovers";
import { compileSeccomp, DEFAULT_SECCOMP_PROFILE } from "./seccomp";
import { ensureVolume, isMounted, probeVolumes, releaseVolume, volumePaths, type VolumeTools } from "./volume";

/** What the worker found at start, reported to the console (see SandboxStatusStore). */
export interface SandboxStatus {
  /** `off`: the operator turned the sandbox off (STDIO_SANDBOX=off); stdio servers run unconfined. */
  mode: "on" | "off";
  /** The sandbox starts on this host (always false when off). */
  available: boolean;
  /** Sandboxes may get outbound network (pasta works here). */
  outbound: boolean;
  /** Why not, in a sentence, when `available` or `outbound` is false. */
  reason?: string;
  /** What each limit rests on here (cgroup, quota, seccomp), when the sandbox is available. */
  enforcement?: SandboxEnforcement;
}

export interface StdioSandboxOptions {
  mode: "on" | "off";
  /** Parent of the per-instance homes; created if missing. */
  dataDir?: string;
  /** Read-only paths on top of the defaults (node's prefix, node_modules directories). */
  readOnlyPaths?: readonly string[];
  /** The host's defaults for installations that did not set a value. */
  defaults?: Partial<SandboxPolicy>;
  /** The largest disk quota an admin may give an installation (STDIO_SANDBOX_DISK_MAX_MB). */
  maxDiskMb?: number;
  /** The seccomp profile (OCI/Docker JSON) compiled at start; `off` for none (STDIO_SANDBOX_SECCOMP_PROFILE). */
  seccompProfile?: string;
  logger: Logger;
  /** Tool paths instead of the ones found on the host (tests: a bwrap that cannot start). */
  tools?: HostTools;
  /** LANG inside the sandbox (the worker's own, from its parsed environment). */
  lang?: string;
  /**
   * Host loopback ports: those the operator allows sandboxes (STDIO_SANDBOX_LOOPBACK_PORTS) and those never
   * granted (this deployment's PostgreSQL, Redis, bridge and console ports; the well-known defaults always).
   */
  loopback?: { operatorPorts?: readonly number[]; reserved?: readonly ReservedPort[] };
}

/** What one launch needs besides the installation's stored settings. */
export interface WrapOptions {
  /** The host uid of the instance's sandbox (when the worker is root; a throwaway one otherwise). */
  uid?: number;
  /** The loopback ports the deployment owners allow now (read with the launch). */
  deploymentLoopbackPorts?: readonly number[];
}

export const SANDBOX_UNAVAILABLE_MESSAGE =
  "Stdio servers are disabled on this host: the sandbox cannot start (user namespaces unavailable). An operator can enable unprivileged user namespaces and install bubblewrap, or set STDIO_SANDBOX=off to run them without a sandbox.";
const OUTBOUND_UNAVAILABLE_MESSAGE =
  "This server is allowed outbound network access, but this host cannot give it to sandboxed servers (pasta cannot start). An admin can turn outbound access off in the installation's settings, or an operator can install passt and make /dev/net/tun usable.";

/**
 * When the worker is root, each sandbox runs as a uid of its own, which must be able to reach every read-only
 * path (bubblewrap mounts them as that user): the first directory on the way that other users cannot pass, if any.
 */
export function closedToOthers(target: string): string | undefined {
  const chain: string[] = [];
  for (let dir = path.resolve(target); ; dir = path.dirname(dir)) {
    chain.push(dir);
    if (dir === path.dirname(dir)) break;
  }
  for (const dir of chain.reverse()) {
    let mode: number;
    try {
      mode = statSync(dir).mode;
    } catch {
      return undefined; // a path that does not exist is skipped by bubblewrap (--ro-bind-try)
    }
    if ((mode & 0o001) === 0) return dir;
  }
  return undefined;
}

export function closedPathMessage(target: string, closed: string): string {
  return (
    `Stdio servers are disabled on this host: the sandbox runs each server as its own user, which cannot reach ${target} ` +
    `because ${closed} is closed to other users. An operator can run the worker as a non-root user, or open the ` +
    `directories on the way for passing through (chmod o+x ${closed}).`
  );
}

/**
 * The host uids sandboxes run as when the worker is root (never root, never a system or login user). An instance
 * keeps the one the database gave it (`allocateSandboxUid` with `pickSandboxUid`): unique among instances, so no
 * two share a host user. Throwaway sandboxes (a connection test, the start-up probe) take one of a range of their
 * own, unique among those this worker has open.
 */
const INSTANCE_UIDS = { base: 200_000, span: 800_000 } as const;
const THROWAWAY_UIDS = { base: 1_000_000, span: 100_000 } as const;

/** A candidate uid for an instance (the database's unique index decides whether it is free). */
export function pickSandboxUid(): number {
  return INSTANCE_UIDS.base + randomInt(INSTANCE_UIDS.span);
}

/** Gives a tree to its new owner (a home made under an earlier uid): links themselves, never what they point to. */
function chownTree(dir: string, uid: number, gid: number): void {
  lchownSync(dir, uid, gid);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const child = path.join(dir, entry.name);
    if (entry.isDirectory()) chownTree(child, uid, gid);
    else lchownSync(child, uid, gid);
  }
}

/**
 * Puts every stdio server this worker runs in its own bubblewrap sandbox (core buildSandboxedCommand): its
 * own user, PID, mount, IPC and (unless allowed outbound) network namespaces, a read-only view of the system,
 * a private home and tmp per instance kept across that instance's restarts, limits, and an environment of
 * only the configured values. Probed once at start; when it cannot start, stdio launches are refused with a
 * readable reason instead of running unconfined.
 */
/** The sandbox cannot run a server here (none on this host, or no outbound access where it is allowed). */
export class SandboxRefusedError extends Error {
  override readonly name = "SandboxRefusedError";
}

export class StdioSandbox {
  private constructor(
    readonly status: SandboxStatus,
    readonly dataDir: string,
    private readonly host: Omit<SandboxHost, "runAs"> | undefined,
    /** The host's defaults for what an installation leaves out (reported to the console). */
    readonly defaults: SandboxPolicy,
    private readonly root: boolean,
    private readonly limits: Limits = { maxDiskMb: SANDBOX_DISK_MAX_MB },
  ) {}

  /** The uids of the throwaway sandboxes open now, by id. */
  private readonly throwaway = new Map<string, number>();
  private logger: Logger | undefined;
  private operatorLoopbackPorts: number[] = [];
  private reservedPorts: ReservedPort[] = [...WELL_KNOWN_RESERVED_PORTS];

  /** When true, every instance's sandbox runs as a host uid of its own: `wrap` wants the instance's uid. */
  get runsAsOwnUser(): boolean {
    return this.enabled && this.root;
  }

  static async start(options: StdioSandboxOptions): Promise<StdioSandbox> {
    const sandbox = await StdioSandbox.create(options);
    sandbox.logger = options.logger;
    sandbox.reserveLoopbackPorts(options.loopback?.reserved ?? []);
    const granted = grantLoopbackPorts(options.loopback?.operatorPorts ?? [], {
      allowed: options.loopback?.operatorPorts ?? [],
      reserved: sandbox.reservedPorts,
    });
    for (const { port, reason } of granted.refused)
      options.logger.warn({ port }, `STDIO_SANDBOX_LOOPBACK_PORTS: port ${port} ignored. ${reason}`);
    sandbox.operatorLoopbackPorts = granted.ports;
    return sandbox;
  }

  /** Ports no sandbox is ever given, besides those known at start (the bridge's, once it listens on a free one). */
  reserveLoopbackPorts(ports: readonly ReservedPort[]): void {
    this.reservedPorts = mergeReserved(this.reservedPorts, ports);
    const reserved = new Set(this.reservedPorts.map((r) => r.port));
    this.operatorLoopbackPorts = this.operatorLoopbackPorts.filter((p) => !reserved.has(p));
  }

  /** For the console: the operator's ports (as granted) and the reserved ones. */
  get loopback(): { operatorPorts: number[]; reserved: ReservedPort[] } {
    return { operatorPorts: [...this.operatorLoopbackPorts], reserved: [...this.reservedPorts] };
  }

  private static async create(options: StdioSandboxOptions): Promise<StdioSandbox> {
    const defaults = { ...SANDBOX_DEFAULTS, ...options.defaults };
    const maxDiskMb = options.maxDiskMb ?? SANDBOX_DISK_MAX_MB;
    defaults.diskMb = Math.min(defaults.diskMb, maxDiskMb);
    const root = process.getuid?.() === 0;
    const dataDir = prepareDataDir(options.dataDir);
    if (options.mode === "off") {
      options.logger.warn(
        "STDIO_SANDBOX=off: stdio servers run without a sandbox, as the worker's user, and can read what it can",
      );
      return new StdioSandbox(
        { mode: "off", available: false, outbound: false, reason: "The operator turned the sandbox off." },
        dataDir,
        undefined,
        defaults,
        root,
      );
    }
    const tools = { ...findHostTools(), ...options.tools };
    const missing = (["bwrap", "setpriv", "prlimit", "sh"] as const).filter((t) => !tools[t]);
    if (missing.length > 0) {
      options.logger.error({ missing }, "stdio sandbox unavailable: tools missing (install bubblewrap and util-linux)");
      return new StdioSandbox(
        { mode: "on", available: false, outbound: false, reason: SANDBOX_UNAVAILABLE_MESSAGE },
        dataDir,
        undefined,
        defaults,
        root,
      );
    }
    const readOnlyPaths: string[] = [];
    for (const candidate of [...defaultReadOnlyPaths(), ...(options.readOnlyPaths ?? [])]) {
      const resolved = path.resolve(candidate);
      const unsafe = unsafeReadOnlyPath(resolved);
      if (unsafe) options.logger.warn({ path: resolved }, `read-only path for stdio sandboxes refused: ${unsafe}`);
      else if (!readOnlyPaths.includes(resolved)) readOnlyPaths.push(resolved);
    }
    const profile = options.seccompProfile ?? DEFAULT_SECCOMP_PROFILE;
    const compiled =
      profile === "off"
        ? { reason: "the operator turned it off (STDIO_SANDBOX_SECCOMP_PROFILE=off)." }
        : compileSeccomp(profile, dataDir, tools.python3);
    if ("reason" in compiled)
      options.logger.warn({ reason: compiled.reason }, "stdio sandboxes run without a seccomp filter");
    let seccomp: SandboxHostSupport["seccomp"] = "reason" in compiled ? compiled : { profile: compiled.profile };
    const host: Omit<SandboxHost, "runAs"> = {
      bwrap: tools.bwrap!,
      pasta: tools.pasta ?? "/usr/bin/pasta",
      setpriv: tools.setpriv!,
      prlimit: tools.prlimit!,
      sh: tools.sh!,
      ...hostLayout(),
      readOnlyPaths,
      path: sandboxPath(readOnlyPaths),
      lang: options.lang,
      ...("file" in compiled ? { seccomp: compiled.file } : {}),
    };
    if (root) {
      for (const readOnly of readOnlyPaths) {
        const closed = closedToOthers(readOnly);
        if (!closed) continue;
        const reason = closedPathMessage(readOnly, closed);
        options.logger.error(
          { path: readOnly, closed },
          "stdio sandbox cannot reach a read-only path; stdio servers are refused",
        );
        return new StdioSandbox(
          { mode: "on", available: false, outbound: false, reason },
          dataDir,
          host,
          defaults,
          root,
        );
      }
    }
    const reaped = reapLeftoverSandboxes(dataDir);
    if (reaped.length > 0)
      options.logger.warn({ pids: reaped }, "killed sandbox processes an earlier worker left behind");
    const cgroups = detectCgroups();
    if ("reason" in cgroups)
      options.logger.warn({ reason: cgroups.reason }, "stdio sandboxes get no cgroup of their own");
    const volumeTools: VolumeTools | undefined =
      tools.mkfs && tools.mount && tools.umount
        ? {
            mkfs: tools.mkfs,
            mount: tools.mount,
            umount: tools.umount,
            e2fsck: tools.e2fsck,
            resize2fs: tools.resize2fs,
          }
        : undefined;
    const quota = probeVolumes(volumeTools, dataDir);
    if ("reason" in quota)
      options.logger.warn({ reason: quota.reason }, "stdio sandboxes get no disk quota of their own");
    const limits: Limits = {
      maxDiskMb,
      logger: options.logger,
      ...("reason" in cgroups ? {} : { cgroups }),
      ...("reason" in quota ? {} : { volumes: volumeTools }),
    };
    const make = (status: SandboxStatus, withHost = host) =>
      new StdioSandbox(status, dataDir, withHost, defaults, root, limits);
    let probe = make({ mode: "on", available: true, outbound: true });
    let isolated = await probe.probe(false);
    if (!isolated.ok && host.seccomp) {
      // A filter the kernel refuses must not take the sandbox down with it: without it, and say so.
      const without = make({ mode: "on", available: true, outbound: true }, { ...host, seccomp: undefined });
      const retried = await without.probe(false);
      if (retried.ok) {
        options.logger.warn(
          { detail: isolated.detail },
          "the seccomp filter does not load here; sandboxes run without it",
        );
        seccomp = { reason: `the filter did not load (${isolated.detail ?? "unknown"}).` };
        delete host.seccomp;
        probe = without;
        isolated = retried;
      }
    }
    const support: SandboxHostSupport = {
      cgroup: "reason" in cgroups ? { reason: cgroups.reason } : { version: cgroups.version },
      diskQuota: quota,
      seccomp,
    };
    if (!isolated.ok) {
      options.logger.error(
        { detail: isolated.detail },
        "stdio sandbox cannot start on this host; stdio servers are refused",
      );
      return new StdioSandbox(
        { mode: "on", available: false, outbound: false, reason: SANDBOX_UNAVAILABLE_MESSAGE },
        dataDir,
        host,
        defaults,
        root,
      );
    }
    const networked = tools.pasta ? await probe.probe(true) : { ok: false, detail: "pasta is not installed" };
    if (!networked.ok)
      options.logger.warn({ detail: networked.detail }, "stdio sandboxes cannot get outbound network here (pasta)");
    const enforcement = describeSandboxEnforcement(support);
    options.logger.info({ dataDir, readOnlyPaths, outbound: networked.ok, root, enforcement }, "stdio sandbox ready");
    return make({
      mode: "on",
      available: true,
      outbound: networked.ok,
      ...(networked.ok ? {} : { reason: OUTBOUND_UNAVAILABLE_MESSAGE }),
      enforcement,
    });
  }

  /** The largest disk quota an admin may give (reported to the console). */
  get maxDiskMb(): number {
    return this.limits.maxDiskMb;
  }

  get enabled(): boolean {
    return this.status.mode === "on";
  }

  /**
   * The launch wrapped in the instance's sandbox, under the installation's stored settings. Throws a readable
   * error when the sandbox cannot start here (or cannot give the outbound access the installation allows).
   * Loopback ports the installation lists are granted only while the deployment allows them, and never one of
   * Switchboard's own: a stored value from before that rule (or a changed deployment) is dropped and logged.
   */
  wrap(instanceId: string, launch: StdioLaunch, stored: unknown, options: WrapOptions = {}): StdioLaunch {
    if (!this.enabled) return launch;
    if (!this.status.available || !this.host)
      throw new SandboxRefusedError(this.status.reason ?? SANDBOX_UNAVAILABLE_MESSAGE);
    let policy = resolveSandboxPolicy(stored, this.defaults, this.limits.maxDiskMb);
    if (policy.outbound && !this.status.outbound) throw new SandboxRefusedError(OUTBOUND_UNAVAILABLE_MESSAGE);
    if (policy.loopbackPorts.length > 0) {
      const granted = grantLoopbackPorts(policy.loopbackPorts, {
        allowed: allowedLoopbackPorts(
          [this.operatorLoopbackPorts, options.deploymentLoopbackPorts ?? []],
          this.reservedPorts,
        ),
        reserved: this.reservedPorts,
      });
      for (const { port, reason } of granted.refused)
        this.logger?.warn({ instanceId, port }, `loopback port not given to the sandbox. ${reason}`);
      policy = { ...policy, loopbackPorts: granted.ports };
    }
    const user = this.root ? (options.uid ?? this.throwawayUid(instanceId)) : undefined;
    const runAs = user === undefined ? undefined : { uid: user, gid: user };
    // A throwaway sandbox (root, no uid of the instance's own) keeps nothing: its home and tmp are tmpfs.
    const throwaway = this.root && options.uid === undefined;
    const dirs: SandboxDirs = {
      ...(throwaway ? {} : this.instanceDirs(instanceId, runAs, policy.diskMb)),
      argsFile: this.argsFile(instanceId, runAs),
      ...(this.limits.cgroups && {
        cgroupProcs: this.limits.cgroups.create(instanceId, { memoryMb: policy.memoryMb, processes: policy.processes }),
      }),
    };
    const wrapped = buildSandboxedCommand(launch, policy, { ...this.host, runAs }, dirs);
    writeFileSync(dirs.argsFile, wrapped.argsFileContent, { mode: 0o600 });
    if (runAs) chownSync(dirs.argsFile, runAs.uid, runAs.gid);
    return { transport: "stdio", command: wrapped.command, args: wrapped.args, env: wrapped.env };
  }

  /** Deletes an instance's home and tmp (its installation or membership is gone). */
  removeInstance(instanceId: string): void {
    this.throwaway.delete(instanceId);
    if (!/^[A-Za-z0-9_-]+$/.test(instanceId)) return;
    const dir = path.join(this.dataDir, instanceId);
    if (this.limits.volumes) releaseVolume(this.limits.volumes, dir);
    rmSync(dir, { recursive: true, force: true });
  }

  /**
   * Detaches every instance file system under the data directory and removes the empty cgroups (worker stop):
   * the next start mounts what it launches again.
   */
  close(): void {
    this.limits.cgroups?.sweep(true);
    if (!this.limits.volumes) return;
    let entries: string[];
    try {
      entries = readdirSync(this.dataDir);
    } catch {
      return;
    }
    for (const entry of entries) {
      const dir = path.join(this.dataDir, entry);
      if (isMounted(volumePaths(dir).mountPoint)) releaseVolume(this.limits.volumes, dir);
    }
  }

  /** Where an instance's files live on the host (tests look inside). */
  instanceDir(instanceId: string): string {
    if (!/^[A-Za-z0-9_-]+$/.test(instanceId)) throw new Error(`invalid instance id ${instanceId}`);
    return path.join(this.dataDir, instanceId);
  }

  /** Where an instance's home is on the host (tests look inside). */
  homeDir(instanceId: string): string {
    const base = this.instanceDir(instanceId);
    return this.limits.volumes ? volumePaths(base).home : path.join(base, "home");
  }

  private instanceDirs(instanceId: string, runAs: { uid: number; gid: number } | undefined, diskMb: number) {
    const base = this.instanceDir(instanceId);
    mkdirSync(base, { recursive: true, mode: 0o700 });
    // With a quota, home and tmp live on the instance's own file system (root only: runAs is set).
    const volume =
      this.limits.volumes && runAs
        ? ensureVolume(this.limits.volumes, base, diskMb, runAs, (message) =>
            this.limits.logger?.warn({ instanceId }, message),
          )
        : undefined;
    const dirs = volume ?? { home: path.join(base, "home"), tmp: path.join(base, "tmp") };
    const roots = volume ? [base, volumePaths(base).mountPoint] : [base];
    // Made under another uid (before instances had one of their own): what the server kept there is now its.
    for (const root of roots) if (runAs && statSync(root).uid !== runAs.uid) chownTree(root, runAs.uid, runAs.gid);
    for (const dir of [...roots, dirs.home, dirs.tmp]) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (runAs) chownSync(dir, runAs.uid, runAs.gid);
      chmodSync(dir, 0o700);
    }
    return dirs;
  }

  /**
   * A file of this launch's own for bwrap's arguments, in the instance's directory (out of the sandbox's sight);
   * the launch removes it once open, and any left by a launch that never got that far go at the next one.
   */
  private argsFile(instanceId: string, runAs: { uid: number; gid: number } | undefined): string {
    const base = this.instanceDir(instanceId);
    mkdirSync(base, { recursive: true, mode: 0o700 });
    if (runAs && statSync(base).uid !== runAs.uid) chownSync(base, runAs.uid, runAs.gid);
    const now = Date.now();
    for (const entry of readdirSync(base)) {
      if (!entry.endsWith(".args")) continue;
      const file = path.join(base, entry);
      try {
        if (now - statSync(file).mtimeMs > 60_000) rmSync(file, { force: true });
      } catch {
        // gone meanwhile
      }
    }
    return path.join(base, `launch-${randomBytes(6).toString("hex")}.args`);
  }

  /** A throwaway sandbox's uid, none of the others open on this worker (released by `removeInstance`). */
  private throwawayUid(id: string): number {
    const held = this.throwaway.get(id);
    if (held !== undefined) return held;
    const taken = new Set(this.throwaway.values());
    let uid: number;
    do uid = THROWAWAY_UIDS.base + randomInt(THROWAWAY_UIDS.span);
    while (taken.has(uid));
    this.throwaway.set(id, uid);
    return uid;
  }

  /** Runs `true` in a throwaway sandbox; ok when it exits 0. */
  private async probe(outbound: boolean): Promise<{ ok: boolean; detail?: string }> {
    const id = `probe-${process.pid}-${outbound ? "net" : "nonet"}`;
    try {
      const launch = this.wrap(id, { transport: "stdio", command: "true", args: [], env: {} }, { outbound });
      return await new Promise((resolve) => {
        // Its own process group, swept whatever the outcome: pasta forks a child that waits for a go-ahead to run
        // the sandbox, and when pasta fails (no usable /dev/net/tun) it exits without giving it, so that child
        // would wait forever, re-parented to init.
        const child = spawn(launch.command, launch.args, {
          env: launch.env,
          stdio: ["ignore", "ignore", "pipe"],
          detached: true,
        });
        // And swept with this process if it stops meanwhile (a Ctrl-C while the worker starts).
        const release = child.pid === undefined ? () => {} : killWithThisProcess(child.pid);
        const sweep = () => {
          if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
          release();
        };
        let stderr = "";
        child.stderr.on("data", (chunk: Buffer) => void (stderr = (stderr + chunk.toString()).slice(-2_000)));
        const timer = setTimeout(sweep, 15_000);
        child.once("error", (error) => {
          clearTimeout(timer);
          sweep();
          resolve({ ok: false, detail: error.message });
        });
        child.once("exit", (code, signal) => {
          clearTimeout(timer);
          sweep();
          resolve(code === 0 ? { ok: true } : { ok: false, detail: `exit ${code ?? signal}: ${stderr.trim()}` });
        });
      });
    } catch (error) {
      return { ok: false, detail: error instanceof Error ? error.message : String(error) };
    } finally {
      this.removeInstance(id);
    }
  }
}

/** What holds a sandbox's limits on this host besides its rlimits (found at start). */
interface Limits {
  maxDiskMb: number;
  /** For what a launch could not apply (a smaller quota that the stored files do not fit). */
  logger?: Logger;
  cgroups?: SandboxCgroups;
  volumes?: VolumeTools;
}

/** The configured directory, else /var/lib/switchboard/sandboxes, else one under the OS temp dir. */
function prepareDataDir(configured: string | undefined): string {
  const candidates = configured ? [configured] : ["/var/lib/switchboard/sandboxes"];
  for (const dir of candidates) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o711 });
      accessSync(dir, constants.W_OK);
      allowTraversal(dir);
      return dir;
    } catch {
      if (configured)
        throw new Error(
          `STDIO_SANDBOX_DIR ${configured} cannot be created or written: point it at a directory the worker's user can write.`,
        );
    }
  }
  const fallback = path.join(os.tmpdir(), `switchboard-sandboxes-${process.getuid?.() ?? "user"}`);
  mkdirSync(fallback, { recursive: true, mode: 0o711 });
  allowTraversal(fallback);
  return fallback;
}

/** Sandboxes running as their own uid must pass through the directory to their home, without listing it. */
function allowTraversal(dir: string): void {
  if (statSync(dir).uid === process.getuid?.()) chmodSync(dir, 0o711);
}
