import type { SandboxPolicy } from "./settings";

/** Where things live on the host that runs the sandboxes (found once at worker start, see the worker's probe). */
export interface SandboxHost {
  /** Absolute paths of the tools on the host. */
  bwrap: string;
  /** pasta (package passt): user-mode networking for sandboxes allowed outbound access. */
  pasta: string;
  setpriv: string;
  /** A POSIX shell on the host: the two wrappers below (joining the launch's cgroup, opening bwrap's inputs). */
  sh: string;
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
  /** The compiled seccomp program (classic BPF, compiled once at worker start), when the host has one. */
  seccomp?: string;
}

/** Where one launch keeps its files and what it joins on the host. */
export interface SandboxDirs {
  /**
   * Host directories bound as the home and /tmp, writable by this instance's sandbox alone and kept across its
   * restarts. Absent: both are fresh tmpfs of the disk quota's size (a throwaway sandbox keeps nothing).
   */
  home?: string;
  tmp?: string;
  /** Where the worker writes bwrap's own arguments (`argsFileContent`) for the wrapper to open and remove. */
  argsFile: string;
  /** The `cgroup.procs` files of this launch's own cgroup (one per hierarchy), joined before anything runs. */
  cgroupProcs?: readonly string[];
}

export interface SandboxedCommand {
  command: string;
  args: string[];
  /** The whole environment of the spawned process: nothing of the worker's own environment is in it. */
  env: Record<string, string>;
  /** bwrap's own arguments, NUL-separated: the worker writes them to `dirs.argsFile` before it spawns. */
  argsFileContent: string;
}

/** Inside the sandbox. */
export const SANDBOX_HOME = "/home/sandbox";
export const SANDBOX_USER = "sandbox";
/** The uid and gid a server has inside: the host uid it runs as shows nowhere (not even in /proc/self/uid_map). */
export const SANDBOX_UID = 1000;

const MIB = 1024 * 1024;

/**
 * Run as root (or as the owner of a delegated cgroup) before anything else: moves itself into each cgroup named
 * before `--` (`0` is "the writing process"), so every process the launch starts is counted there, then execs
 * the rest. A cgroup that cannot be joined stops the launch instead of running it without its limits.
 */
const JOIN_CGROUP = 'while [ "$1" != -- ]; do echo 0 > "$1" || exit 125; shift; done; shift; exec "$@"';

/**
 * Right before bwrap, as the sandbox's host user: opens bwrap's arguments as fd 3 (and removes the file) and the
 * seccomp program as fd 4. bwrap reads both and closes them, so neither the host paths in its arguments nor the
 * program reach the server; /proc/1/cmdline inside shows `bwrap --args 3 [--seccomp 4] -- sh -c ... prlimit ...`.
 *
 * It also moves the server's output (the worker's stdout pipe) from fd 1 to fd 5 and gives bwrap /dev/null as its
 * stdout; STDOUT_BACK, the first thing run inside, moves it back. bwrap's own processes (the monitor outside, the
 * init inside the PID namespace) keep fds 0-2 for their lifetime but close every other inherited fd, so the server
 * is the only holder of the pipe's write end: a server that closes its stdout and keeps running is seen by the
 * worker (end of file) as it is unsandboxed. (pasta, when outbound access is allowed, runs before this and still
 * holds the pipe.)
 */
const OPEN_INPUTS =
  'exec 3<"$1" 5>&1 1>/dev/null && rm -f -- "$1" && { [ -z "$2" ] || exec 4<"$2"; } && shift 2 && exec "$@"';
const STDOUT_BACK = 'exec 1>&5 5>&- && exec "$@"';

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
 *   [sh -c JOIN_CGROUP <cgroup.procs...> --]             the launch's own cgroup (memory and pids of the whole sandbox)
 *   [setpriv --reuid U --regid G --clear-groups --]      when the worker is root: a non-root host user
 *   [pasta --config-net ... -T <allowed ports> --]       only with outbound access: user-mode networking
 *   sh -c OPEN_INPUTS <args file> <seccomp program>      bwrap's arguments and filter as file descriptors
 *   bwrap --args 3 [--seccomp 4], the arguments being:
 *         --unshare-user/pid/ipc/uts/cgroup [--unshare-net] --die-with-parent --uid 1000 --gid 1000
 *         read-only /usr (+ system links, an /etc subset, the configured read-only paths), fresh /proc and /dev,
 *         the instance's own home and tmp, nothing else of the host's file system
 *   -- sh -c STDOUT_BACK                                  the server's output back on fd 1 (see OPEN_INPUTS)
 *      prlimit --data --nproc --nofile --cpu --fsize --core=0 -- <command> <args>
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
    "--uid",
    String(SANDBOX_UID),
    "--gid",
    String(SANDBOX_UID),
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
  const tmpfs = ["--size", String(policy.diskMb * MIB), "--tmpfs"];
  bwrap.push(
    ...(dirs.home ? ["--bind", dirs.home] : tmpfs),
    SANDBOX_HOME,
    ...(dirs.tmp ? ["--bind", dirs.tmp] : tmpfs),
    "/tmp",
  );
  for (const entry of host.systemEntries) {
    if (entry.symlinkTo !== undefined) bwrap.push("--symlink", entry.symlinkTo, entry.path);
    else bwrap.push("--ro-bind-try", entry.path, entry.path);
  }
  for (const path of SANDBOX_ETC) bwrap.push("--ro-bind-try", path, path);
  for (const path of host.readOnlyPaths) bwrap.push("--ro-bind-try", path, path);
  bwrap.push("--proc", "/proc", "--dev", "/dev", "--chdir", SANDBOX_HOME);
  const limited = [
    host.sh,
    "-c",
    STDOUT_BACK,
    "sandbox",
    host.prlimit,
    `--data=${policy.memoryMb * MIB}`,
    `--nproc=${policy.processes}`,
    `--nofile=${policy.openFiles}`,
    `--cpu=${policy.cpuSeconds}`,
    `--fsize=${policy.diskMb * MIB}`,
    "--core=0",
    "--",
    launch.command,
    ...launch.args,
  ];

  let argv = [
    host.sh,
    "-c",
    OPEN_INPUTS,
    "sandbox",
    dirs.argsFile,
    host.seccomp ?? "",
    host.bwrap,
    "--args",
    "3",
    ...(host.seccomp ? ["--seccomp", "4"] : []),
    "--",
    ...limited,
  ];
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
  if (dirs.cgroupProcs?.length) argv = [host.sh, "-c", JOIN_CGROUP, "sandbox", ...dirs.cgroupProcs, "--", ...argv];
  const [command, ...args] = argv as [string, ...string[]];
  return { command, args, env, argsFileContent: bwrap.map((arg) => `${arg}\0`).join("") };
}
