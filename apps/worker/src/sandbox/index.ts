import { spawn } from "node:child_process";
import { randomBytes, randomInt } from "node:crypto";
import { chmodSync, chownSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  allowedLoopbackPorts,
  buildSandboxedCommand,
  grantLoopbackPorts,
  mergeReserved,
  resolveSandboxPolicy,
  SANDBOX_DISK_MAX_MB,
  WELL_KNOWN_RESERVED_PORTS,
  type ReservedPort,
  type SandboxDirs,
  type SandboxHost,
  type SandboxPolicy,
} from "@switchboard/core/sandbox";
import { killWithThisProcess, signalGroup, type StdioLaunch } from "@switchboard/core/stdio";
import type { Logger } from "@switchboard/runtime/logger";
import { chownTree, THROWAWAY_UIDS } from "./host-files";
import {
  OUTBOUND_UNAVAILABLE_MESSAGE,
  SANDBOX_UNAVAILABLE_MESSAGE,
  type Limits,
  type SandboxStatus,
  type StdioSandboxOptions,
  type WrapOptions,
} from "./options";
import { setUpSandbox } from "./setup";
import { ensureVolume, isMounted, releaseVolume, volumePaths } from "./volume";

export { closedPathMessage, closedToOthers, pickSandboxUid } from "./host-files";
export { SANDBOX_UNAVAILABLE_MESSAGE, type SandboxStatus, type StdioSandboxOptions, type WrapOptions } from "./options";

/** The sandbox cannot run a server here (none on this host, or no outbound access where it is allowed). */
export class SandboxRefusedError extends Error {
  override readonly name = "SandboxRefusedError";
}

/**
 * Puts every stdio server this worker runs in its own bubblewrap sandbox (core buildSandboxedCommand): its
 * own user, PID, mount, IPC and (unless allowed outbound) network namespaces, a read-only view of the system,
 * a private home and tmp per instance kept across that instance's restarts, limits, and an environment of
 * only the configured values. Probed once at start; when it cannot start, stdio launches are refused with a
 * readable reason instead of running unconfined.
 */

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

  private static create(options: StdioSandboxOptions): Promise<StdioSandbox> {
    return setUpSandbox(
      options,
      (parts) => new StdioSandbox(parts.status, parts.dataDir, parts.host, parts.defaults, parts.root, parts.limits),
    );
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

  /** Runs `true` in a throwaway sandbox; ok when it exits 0 (setUpSandbox probes the host with it). */
  async probe(outbound: boolean): Promise<{ ok: boolean; detail?: string }> {
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
