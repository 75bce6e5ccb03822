import { spawn } from "node:child_process";
import { randomInt } from "node:crypto";
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
} from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  buildSandboxedCommand,
  resolveSandboxPolicy,
  SANDBOX_DEFAULTS,
  type SandboxHost,
  type SandboxPolicy,
} from "@switchboard/core/sandbox";
import { signalGroup, type StdioLaunch } from "@switchboard/core/stdio";
import type { Logger } from "@switchboard/runtime/logger";
import { defaultReadOnlyPaths, findHostTools, hostLayout, unsafeReadOnlyPath, type HostTools } from "./host";
import { reapLeftoverSandboxes } from "./leftovers";

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
}

export interface StdioSandboxOptions {
  mode: "on" | "off";
  /** Parent of the per-instance homes; created if missing. */
  dataDir?: string;
  /** Read-only paths on top of the defaults (node's prefix, node_modules directories). */
  readOnlyPaths?: readonly string[];
  /** The host's defaults for installations that did not set a value. */
  defaults?: Partial<SandboxPolicy>;
  logger: Logger;
  /** Tool paths instead of the ones found on the host (tests: a bwrap that cannot start). */
  tools?: HostTools;
  /** PATH and LANG inside the sandbox (the worker's own, from its parsed environment). */
  path?: string;
  lang?: string;
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
export class StdioSandbox {
  private constructor(
    readonly status: SandboxStatus,
    readonly dataDir: string,
    private readonly host: Omit<SandboxHost, "runAs"> | undefined,
    /** The host's defaults for what an installation leaves out (reported to the console). */
    readonly defaults: SandboxPolicy,
    private readonly root: boolean,
  ) {}

  /** The uids of the throwaway sandboxes open now, by id. */
  private readonly throwaway = new Map<string, number>();

  /** When true, every instance's sandbox runs as a host uid of its own: `wrap` wants the instance's uid. */
  get runsAsOwnUser(): boolean {
    return this.enabled && this.root;
  }

  static async start(options: StdioSandboxOptions): Promise<StdioSandbox> {
    const defaults = { ...SANDBOX_DEFAULTS, ...options.defaults };
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
    const missing = (["bwrap", "setpriv", "prlimit"] as const).filter((t) => !tools[t]);
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
    const host: Omit<SandboxHost, "runAs"> = {
      bwrap: tools.bwrap!,
      pasta: tools.pasta ?? "/usr/bin/pasta",
      setpriv: tools.setpriv!,
      prlimit: tools.prlimit!,
      ...hostLayout(),
      readOnlyPaths,
      path: options.path ?? "/usr/local/bin:/usr/bin:/bin",
      lang: options.lang,
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
    const probe = new StdioSandbox({ mode: "on", available: true, outbound: true }, dataDir, host, defaults, root);
    const isolated = await probe.probe(false);
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
    options.logger.info({ dataDir, readOnlyPaths, outbound: networked.ok, root }, "stdio sandbox ready");
    return new StdioSandbox(
      {
        mode: "on",
        available: true,
        outbound: networked.ok,
        ...(networked.ok ? {} : { reason: OUTBOUND_UNAVAILABLE_MESSAGE }),
      },
      dataDir,
      host,
      defaults,
      root,
    );
  }

  get enabled(): boolean {
    return this.status.mode === "on";
  }

  /**
   * The launch wrapped in the instance's sandbox, under the installation's stored settings. Throws a readable
   * error when the sandbox cannot start here (or cannot give the outbound access the installation allows).
   */
  wrap(instanceId: string, launch: StdioLaunch, stored: unknown, uid?: number): StdioLaunch {
    if (!this.enabled) return launch;
    if (!this.status.available || !this.host) throw new Error(this.status.reason ?? SANDBOX_UNAVAILABLE_MESSAGE);
    const policy = resolveSandboxPolicy(stored, this.defaults);
    if (policy.outbound && !this.status.outbound) throw new Error(OUTBOUND_UNAVAILABLE_MESSAGE);
    const user = this.root ? (uid ?? this.throwawayUid(instanceId)) : undefined;
    const runAs = user === undefined ? undefined : { uid: user, gid: user };
    const dirs = this.instanceDirs(instanceId, runAs);
    const wrapped = buildSandboxedCommand(launch, policy, { ...this.host, runAs }, dirs);
    return { transport: "stdio", command: wrapped.command, args: wrapped.args, env: wrapped.env };
  }

  /** Deletes an instance's home and tmp (its installation or membership is gone). */
  removeInstance(instanceId: string): void {
    this.throwaway.delete(instanceId);
    if (!/^[A-Za-z0-9_-]+$/.test(instanceId)) return;
    rmSync(path.join(this.dataDir, instanceId), { recursive: true, force: true });
  }

  /** Where an instance's files live on the host (tests look inside). */
  instanceDir(instanceId: string): string {
    if (!/^[A-Za-z0-9_-]+$/.test(instanceId)) throw new Error(`invalid instance id ${instanceId}`);
    return path.join(this.dataDir, instanceId);
  }

  private instanceDirs(instanceId: string, runAs: { uid: number; gid: number } | undefined) {
    const base = this.instanceDir(instanceId);
    const dirs = { home: path.join(base, "home"), tmp: path.join(base, "tmp") };
    mkdirSync(base, { recursive: true, mode: 0o700 });
    // Made under another uid (before instances had one of their own): what the server kept there is now its.
    if (runAs && statSync(base).uid !== runAs.uid) chownTree(base, runAs.uid, runAs.gid);
    for (const dir of [base, dirs.home, dirs.tmp]) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (runAs) chownSync(dir, runAs.uid, runAs.gid);
      chmodSync(dir, 0o700);
    }
    return dirs;
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
        // Its own process group, killed whole once it exits: pasta that fails (no usable /dev/net/tun) leaves the
        // stub it forked for the command waiting forever, parent pid 1.
        const child = spawn(launch.command, launch.args, {
          env: launch.env,
          stdio: ["ignore", "ignore", "pipe"],
          detached: true,
        });
        let stderr = "";
        child.stderr.on("data", (chunk: Buffer) => void (stderr = (stderr + chunk.toString()).slice(-2_000)));
        const timer = setTimeout(() => signalGroup(child.pid!, "SIGKILL"), 15_000);
        child.once("error", (error) => {
          clearTimeout(timer);
          resolve({ ok: false, detail: error.message });
        });
        child.once("exit", (code, signal) => {
          clearTimeout(timer);
          signalGroup(child.pid!, "SIGKILL");
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
