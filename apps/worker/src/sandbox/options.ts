import type { ReservedPort, SandboxEnforcement, SandboxPolicy } from "@switchboard/core/sandbox";
import type { Logger } from "@switchboard/runtime/logger";
import type { SandboxCgroups } from "./cgroup";
import type { HostTools } from "./host";
import type { VolumeTools } from "./volume";

/* What a StdioSandbox is started with, what it reports, and what it says when it refuses a launch. */

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
export const OUTBOUND_UNAVAILABLE_MESSAGE =
  "This server is allowed outbound network access, but this host cannot give it to sandboxed servers (pasta cannot start). An admin can turn outbound access off in the installation's settings, or an operator can install passt and make /dev/net/tun usable.";

/** What holds a sandbox's limits on this host besides its rlimits (found at start). */
export interface Limits {
  maxDiskMb: number;
  /** For what a launch could not apply (a smaller quota that the stored files do not fit). */
  logger?: Logger;
  cgroups?: SandboxCgroups;
  volumes?: VolumeTools;
}
