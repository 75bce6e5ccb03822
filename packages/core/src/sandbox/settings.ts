import { z } from "zod";

/**
 * What an admin may change about the sandbox of one installation's stdio servers. Every key is optional: a
 * missing one takes the host's default (SANDBOX_DEFAULTS unless the operator changed it).
 */
export const sandboxSettingsSchema = z
  .object({
    /**
     * Memory of the whole sandbox (its cgroup, where the host lets the worker make one) and of each process in it
     * (RLIMIT_DATA: heap and anonymous mappings).
     */
    memoryMb: z.number().int().min(64, "Give a server at least 64 MB of memory.").max(65_536).optional(),
    /** Processes and threads running at once inside one sandbox (its cgroup's pids.max, and RLIMIT_NPROC). */
    processes: z
      .number()
      .int()
      .min(8, "A server needs at least 8 processes (node alone runs about a dozen threads).")
      .max(4_096)
      .optional(),
    /** Open files and sockets per process (RLIMIT_NOFILE). */
    openFiles: z.number().int().min(64).max(65_536).optional(),
    /** CPU seconds one process may use over its lifetime (RLIMIT_CPU); it is killed past it and restarted. */
    cpuSeconds: z
      .number()
      .int()
      .min(10)
      .max(7 * 24 * 3600)
      .optional(),
    /**
     * Disk space of the instance's home and /tmp together (a file system of that size of its own, where the worker
     * runs as root), and the largest file any process may write (RLIMIT_FSIZE). Capped by the operator's maximum.
     */
    diskMb: z.number().int().min(64, "Give a server at least 64 MB of disk.").max(1_048_576).optional(),
    /** Whether the server may open connections to the internet. The host's own services stay out of reach. */
    outbound: z.boolean().optional(),
    /**
     * Ports of services on the host's loopback (127.0.0.1) the server may reach; needs outbound on. Only ports
     * the deployment allows take effect (core `grantLoopbackPorts`, checked when saving and at every launch).
     */
    loopbackPorts: z.array(z.number().int().min(1).max(65_535)).max(16).optional(),
  })
  .strict()
  .refine((s) => !(s.loopbackPorts?.length && s.outbound !== true), {
    message: "Allowing a host service needs outbound network access on.",
    path: ["loopbackPorts"],
  });

export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>;

export interface SandboxLimits {
  memoryMb: number;
  processes: number;
  openFiles: number;
  cpuSeconds: number;
  diskMb: number;
}

/** The effective policy of one installation's sandboxes: every value decided. */
export interface SandboxPolicy extends SandboxLimits {
  outbound: boolean;
  loopbackPorts: number[];
}

/**
 * Defaults when neither the admin nor the operator said otherwise. Memory is per process (RLIMIT_DATA, which
 * unlike RLIMIT_AS leaves V8's large address-space reservations alone); CPU time is per process lifetime, and
 * idle stops start a fresh process anyway. No network unless the admin allows it.
 */
export const SANDBOX_DEFAULTS: SandboxPolicy = {
  memoryMb: 1_024,
  processes: 256,
  openFiles: 1_024,
  cpuSeconds: 3_600,
  diskMb: 1_024,
  outbound: false,
  loopbackPorts: [],
};

/** The operator's ceiling on an admin's disk quota when the environment does not set one (STDIO_SANDBOX_DISK_MAX_MB). */
export const SANDBOX_DISK_MAX_MB = 10_240;

/**
 * The installation's stored settings (anything: a JSON column) over the host's defaults. A stored value that
 * no longer validates is ignored as a whole rather than half-applied; a disk quota above the operator's maximum
 * gets the maximum.
 */
export function resolveSandboxPolicy(
  stored: unknown,
  defaults: SandboxPolicy = SANDBOX_DEFAULTS,
  maxDiskMb: number = SANDBOX_DISK_MAX_MB,
): SandboxPolicy {
  const parsed = sandboxSettingsSchema.safeParse(stored ?? {});
  const s: SandboxSettings = parsed.success ? parsed.data : {};
  const outbound = s.outbound ?? defaults.outbound;
  return {
    memoryMb: s.memoryMb ?? defaults.memoryMb,
    processes: s.processes ?? defaults.processes,
    openFiles: s.openFiles ?? defaults.openFiles,
    cpuSeconds: s.cpuSeconds ?? defaults.cpuSeconds,
    diskMb: Math.min(s.diskMb ?? defaults.diskMb, maxDiskMb),
    outbound,
    // A host service is reached through the sandbox's network: without outbound access there is none.
    loopbackPorts: outbound ? [...new Set(s.loopbackPorts ?? defaults.loopbackPorts)].sort((a, b) => a - b) : [],
  };
}

/** How one limit holds on this host: for the sandbox as a whole, per process (or file), or not at all; and why. */
const enforcedSchema = z.object({ scope: z.enum(["sandbox", "process", "file", "none"]), detail: z.string() });

/** What the worker's probe found each limit rests on (the console shows it word for word). */
export const sandboxEnforcementSchema = z.object({
  memory: enforcedSchema,
  processes: enforcedSchema,
  disk: enforcedSchema,
  seccomp: enforcedSchema,
});
export type SandboxEnforcement = z.infer<typeof sandboxEnforcementSchema>;

/** What the host offers, as the worker's probe found it; a reason says in a sentence why one is missing. */
export interface SandboxHostSupport {
  cgroup: { version: "v1" | "v2" } | { reason: string };
  diskQuota: { ok: true } | { reason: string };
  seccomp: { profile: string } | { reason: string };
}

/** The sentences the console shows about what is enforced, one per limit (one home for the wording). */
export function describeSandboxEnforcement(support: SandboxHostSupport): SandboxEnforcement {
  const cgroup = "version" in support.cgroup ? support.cgroup.version : null;
  const noCgroup = "reason" in support.cgroup ? support.cgroup.reason : "";
  return {
    memory: cgroup
      ? { scope: "sandbox", detail: `The sandbox as a whole is held to its memory limit (cgroup ${cgroup}).` }
      : {
          scope: "process",
          detail: `Each process is held to the memory limit (RLIMIT_DATA), not the sandbox as a whole, which may hold processes × memory: ${noCgroup}`,
        },
    processes: cgroup
      ? { scope: "sandbox", detail: `The sandbox as a whole is held to its process limit (cgroup ${cgroup} pids).` }
      : {
          scope: "sandbox",
          detail: "The sandbox's processes and threads are counted together (RLIMIT_NPROC in its own user namespace).",
        },
    disk:
      "ok" in support.diskQuota
        ? {
            scope: "sandbox",
            detail: "Home and /tmp together are held to the disk quota (a file system of that size per instance).",
          }
        : {
            scope: "file",
            detail: `Only each file is held to the disk quota (RLIMIT_FSIZE), not home and /tmp together: ${support.diskQuota.reason}`,
          },
    seccomp:
      "profile" in support.seccomp
        ? { scope: "sandbox", detail: `System calls are filtered by the seccomp profile ${support.seccomp.profile}.` }
        : { scope: "none", detail: `No seccomp filter: ${support.seccomp.reason}` },
  };
}

/** The worker's report (under `redisKeys.sandboxStatus`), as the console reads it. */
export const sandboxStatusReportSchema = z.object({
  mode: z.enum(["on", "off"]),
  available: z.boolean(),
  outbound: z.boolean(),
  reason: z.string().optional(),
  /** The host's defaults for settings an installation leaves out (the console shows them). */
  defaults: z
    .object({
      memoryMb: z.number(),
      processes: z.number(),
      openFiles: z.number(),
      cpuSeconds: z.number(),
      diskMb: z.number().optional(),
      outbound: z.boolean(),
      loopbackPorts: z.array(z.number()),
    })
    .optional(),
  /** The largest disk quota an admin may give (STDIO_SANDBOX_DISK_MAX_MB). */
  maxDiskMb: z.number().optional(),
  enforcement: sandboxEnforcementSchema.optional(),
  /**
   * Host loopback ports as this worker sees them: the ones its operator allows (STDIO_SANDBOX_LOOPBACK_PORTS, less
   * the reserved) and the reserved ones (its database, Redis and bridge ports among them).
   */
  loopback: z
    .object({
      operatorPorts: z.array(z.number()),
      reserved: z.array(z.object({ port: z.number(), service: z.string() })),
    })
    .optional(),
  reportedAt: z.string(),
});
export type SandboxStatusReport = z.infer<typeof sandboxStatusReportSchema>;
