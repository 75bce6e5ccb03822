import type { SandboxPolicy } from "./settings";

/** Where things live on the host that runs the sandboxes (found once at worker start, see the worker's probe). */
export interface SandboxHost {
  /** Absolute paths of the tools on the host. */
  bwrap: string;
  /** pasta (package passt): user-mode networking for sandboxes allowed outbound access. */
  pasta: string;
  setpriv: string;
  /** prlimit as seen inside the sandbox (it runs there, under the read-only /usr). */
  prlimit: string;
  /**
   * The top-level system entries besides /usr: on a merged-/usr system `/bin` is a symlink to `usr/bin`, which
   * the sandbox gets as the same symlink; a real directory is bound read-only.
   */
  systemEntries: ReadonlyArray<{ path: string; symlinkTo?: string }>;
  /** Further read-only paths, bound at the same place (node's install prefix, node_modules directories). */
  readOnlyPaths: readonly string[];
  /** The host user a sandbox runs as when the worker is root (a sandbox never runs as root on the host). */
  runAs?: { uid: number; gid: number };
  /** PATH inside the sandbox (directories that are not bound simply do not exist there). */
  path: string;
  lang?: string;
}

/** The host directories of one instance, writable by its sandbox alone and kept across its restarts. */
export interface SandboxDirs {
  home: string;
  tmp: string;
}

export interface SandboxedCommand {
  command: string;
  args: string[];
  /** The whole environment of the spawned process: nothing of the worker's own environment is in it. */
  env: Record<string, string>;
}

/** Inside the sandbox. */
export const SANDBOX_HOME = "/home/sandbox";
export const SANDBOX_USER = "sandbox";

/**
 * The parts of /etc a program needs to run and resolve names: TLS roots, resolver and name-service config, time
 * zone, the dynamic linker's cache, Debian's alternatives (many /usr/bin entries are links into it). Not
 * /etc/shadow, not /etc at large (host configuration, keys, other services' credentials).
 */
export const SANDBOX_ETC = [
  "/etc/alternatives",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/pki",
  "/etc/resolv.conf",
  "/etc/hosts",
  "/etc/nsswitch.conf",
  "/etc/host.conf",
  "/etc/gai.conf",
  "/etc/services",
  "/etc/protocols",
  "/etc/localtime",
  "/etc/timezone",
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/os-release",
  "/etc/mime.types",
] as const;

/**
 * Wraps one stdio launch in its sandbox (pure: the argv and environment to spawn; the worker spawns it).
 *
 *   [setpriv --reuid U --regid G --clear-groups --]      when the worker is root: a non-root host user
 *   [pasta --config-net ... -T <allowed ports> --]       only with outbound access: user-mode networking
 *   bwrap --unshare-user/pid/ipc/uts/cgroup [--unshare-net] --die-with-parent
 *         read-only /usr (+ system links, an /etc subset, the configured read-only paths), fresh /proc and /dev,
 *         the instance's own home and tmp, nothing else of the host's file system
 *   -- prlimit --data --nproc --nofile --cpu --core=0 -- <command> <args>
 *
 * The limits are set inside the sandbox, after bwrap created its user namespace: RLIMIT_NPROC then counts the
 * processes of this sandbox (the kernel counts per user namespace), not every process of the host user, so a
 * fork bomb in one sandbox neither starves another nor the worker, root or not.
 *
 * Network: without outbound access the sandbox has its own network namespace with only a loopback of its own,
 * so the host's 127.0.0.1 services (PostgreSQL, Redis, the bridge, the console) do not exist for it. With
 * outbound access pasta gives it the host's routes but not the host's loopback (`--no-map-gw`, no automatic
 * port forwarding), except the ports granted (`-T`: 127.0.0.1:<port> inside reaches the host's). The policy's ports
 * are already granted (`grantLoopbackPorts`: allowed by the deployment, never Switchboard's own services).
 */
export function buildSandboxedCommand(
  launch: { command: string; args: readonly string[]; env: Readonly<Record<string, string>> },
  policy: SandboxPolicy,
  host: SandboxHost,
  dirs: SandboxDirs,
): SandboxedCommand {
  const env: Record<string, string> = {
    PATH: host.path,
    HOME: SANDBOX_HOME,
    TMPDIR: "/tmp",
    USER: SANDBOX_USER,
    LOGNAME: SANDBOX_USER,
    LANG: host.lang ?? "C.UTF-8",
    ...launch.env,
  };

  const bwrap: string[] = [
    "--unshare-user",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(policy.outbound ? [] : ["--unshare-net"]),
    "--disable-userns",
    "--die-with-parent",
    "--hostname",
    "sandbox",
    "--ro-bind",
    "/usr",
    "/usr",
  ];
  // The private home and tmp first: a read-only path below /tmp (a checkout in a temporary directory, whose
  // node_modules the server runs from) is mounted after them, on top, instead of being hidden by them.
  bwrap.push("--bind", dirs.home, SANDBOX_HOME, "--bind", dirs.tmp, "/tmp");
  for (const entry of host.systemEntries) {
    if (entry.symlinkTo !== undefined) bwrap.push("--symlink", entry.symlinkTo, entry.path);
    else bwrap.push("--ro-bind-try", entry.path, entry.path);
  }
  for (const path of SANDBOX_ETC) bwrap.push("--ro-bind-try", path, path);
  for (const path of host.readOnlyPaths) bwrap.push("--ro-bind-try", path, path);
  bwrap.push(
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--chdir",
    SANDBOX_HOME,
    "--",
    host.prlimit,
    `--data=${policy.memoryMb * 1024 * 1024}`,
    `--nproc=${policy.processes}`,
    `--nofile=${policy.openFiles}`,
    `--cpu=${policy.cpuSeconds}`,
    "--core=0",
    "--",
    launch.command,
    ...launch.args,
  );

  let argv = [host.bwrap, ...bwrap];
  if (policy.outbound) {
    const ports = policy.loopbackPorts.length > 0 ? policy.loopbackPorts.join(",") : "none";
    argv = [
      host.pasta,
      "--config-net",
      "--quiet",
      "--foreground",
      // Nothing forwarded into the sandbox, nothing of the host's loopback out of it but the allowed ports.
      "-t",
      "none",
      "-u",
      "none",
      "-T",
      ports,
      "-U",
      "none",
      "--no-map-gw",
      "--",
      ...argv,
    ];
  }
  if (host.runAs) {
    argv = [host.setpriv, `--reuid=${host.runAs.uid}`, `--regid=${host.runAs.gid}`, "--clear-groups", "--", ...argv];
  }
  const [command, ...args] = argv as [string, ...string[]];
  return { command, args, env };
}
