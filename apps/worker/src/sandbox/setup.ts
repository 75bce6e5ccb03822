import path from "node:path";
import {
  describeSandboxEnforcement,
  SANDBOX_DEFAULTS,
  SANDBOX_DISK_MAX_MB,
  type SandboxHost,
  type SandboxHostSupport,
  type SandboxPolicy,
} from "@switchboard/core/sandbox";
import { detectCgroups } from "./cgroup";
import { defaultReadOnlyPaths, findHostTools, hostLayout, sandboxPath, unsafeReadOnlyPath } from "./host";
import { closedPathMessage, closedToOthers, prepareDataDir } from "./host-files";
import { reapLeftoverSandboxes } from "./leftovers";
import {
  OUTBOUND_UNAVAILABLE_MESSAGE,
  SANDBOX_UNAVAILABLE_MESSAGE,
  type Limits,
  type SandboxStatus,
  type StdioSandboxOptions,
} from "./options";
import { compileSeccomp, DEFAULT_SECCOMP_PROFILE } from "./seccomp";
import { probeVolumes, type VolumeTools } from "./volume";

/** What a sandbox is made of once the host is known (StdioSandbox's constructor arguments). */
export interface SandboxParts {
  status: SandboxStatus;
  dataDir: string;
  host: Omit<SandboxHost, "runAs"> | undefined;
  /** The host's defaults for what an installation leaves out (reported to the console). */
  defaults: SandboxPolicy;
  root: boolean;
  limits?: Limits;
}

/** A sandbox that can run `true` in a throwaway sandbox of its own (with or without outbound network). */
export interface Probing {
  probe(outbound: boolean): Promise<{ ok: boolean; detail?: string }>;
}

/**
 * Finds what this host offers a sandbox (bubblewrap and its tools, read-only paths other users can pass, seccomp,
 * cgroups, disk quotas, pasta for outbound network), probes it by running `true` in one, and builds the sandbox
 * with what works, or one that refuses every launch with the reason. Logs what is missing.
 */
export async function setUpSandbox<S extends Probing>(
  options: StdioSandboxOptions,
  build: (parts: SandboxParts) => S,
): Promise<S> {
  const defaults = { ...SANDBOX_DEFAULTS, ...options.defaults };
  const maxDiskMb = options.maxDiskMb ?? SANDBOX_DISK_MAX_MB;
  defaults.diskMb = Math.min(defaults.diskMb, maxDiskMb);
  const root = process.getuid?.() === 0;
  const dataDir = prepareDataDir(options.dataDir);
  /** A sandbox that refuses every launch with `reason`: the operator turned it off, or this host cannot run one. */
  const refusing = (mode: "on" | "off", reason: string, host?: SandboxParts["host"]) =>
    build({ status: { mode, available: false, outbound: false, reason }, dataDir, host, defaults, root });
  if (options.mode === "off") {
    options.logger.warn(
      "STDIO_SANDBOX=off: stdio servers run without a sandbox, as the worker's user, and can read what it can",
    );
    return refusing("off", "The operator turned the sandbox off.");
  }
  const tools = { ...findHostTools(), ...options.tools };
  const missing = (["bwrap", "setpriv", "prlimit", "sh"] as const).filter((t) => !tools[t]);
  if (missing.length > 0) {
    options.logger.error({ missing }, "stdio sandbox unavailable: tools missing (install bubblewrap and util-linux)");
    return refusing("on", SANDBOX_UNAVAILABLE_MESSAGE);
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
      return refusing("on", reason, host);
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
    build({ status, dataDir, host: withHost, defaults, root, limits });
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
    return refusing("on", SANDBOX_UNAVAILABLE_MESSAGE, host);
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
