import { describe, expect, it } from "vitest";
import {
  buildSandboxedCommand,
  describeSandboxEnforcement,
  resolveSandboxPolicy,
  SANDBOX_DEFAULTS,
  sandboxSettingsSchema,
  type SandboxHost,
} from "../src/sandbox";

const host: SandboxHost = {
  bwrap: "/usr/bin/bwrap",
  pasta: "/usr/bin/pasta",
  setpriv: "/usr/bin/setpriv",
  prlimit: "/usr/bin/prlimit",
  sh: "/bin/sh",
  seccomp: "/var/lib/switchboard/sandboxes/seccomp.bpf",
  systemEntries: [{ path: "/bin", symlinkTo: "usr/bin" }, { path: "/opt/lib" }],
  readOnlyPaths: ["/srv/app/node_modules"],
  path: "/srv/app/node_modules/.bin:/usr/bin:/bin",
};
const dirs = {
  home: "/var/lib/switchboard/sandboxes/i1/volume/home",
  tmp: "/var/lib/switchboard/sandboxes/i1/volume/tmp",
  argsFile: "/var/lib/switchboard/sandboxes/i1/launch-1.args",
};
const MIB = 1024 * 1024;

/** bwrap's own arguments, as the worker writes them to the args file. */
const bwrapArgs = (content: string) => content.split("\0").slice(0, -1);
const launch = { command: "mcp-server-everything", args: ["stdio"], env: { API_KEY: "k" } };

/** The values following each occurrence of a flag. */
function after(args: string[], flag: string, count = 1): string[][] {
  return args.flatMap((a, i) => (a === flag ? [args.slice(i + 1, i + 1 + count)] : []));
}

describe("sandbox settings", () => {
  it("fills what an installation did not set from the host's defaults", () => {
    expect(resolveSandboxPolicy({ memoryMb: 512 })).toEqual({ ...SANDBOX_DEFAULTS, memoryMb: 512 });
    expect(resolveSandboxPolicy(null, { ...SANDBOX_DEFAULTS, processes: 64 }).processes).toBe(64);
  });

  it("holds an admin's disk quota to the operator's maximum", () => {
    expect(resolveSandboxPolicy({ diskMb: 4_096 }, SANDBOX_DEFAULTS, 2_048).diskMb).toBe(2_048);
    expect(resolveSandboxPolicy({ diskMb: 512 }, SANDBOX_DEFAULTS, 2_048).diskMb).toBe(512);
    expect(resolveSandboxPolicy({}, SANDBOX_DEFAULTS, 2_048).diskMb).toBe(SANDBOX_DEFAULTS.diskMb);
    expect(sandboxSettingsSchema.safeParse({ diskMb: 10 }).success).toBe(false);
  });

  it("says per limit whether it holds for the whole sandbox, and why not", () => {
    const full = describeSandboxEnforcement({
      cgroup: { version: "v1" },
      diskQuota: { ok: true },
      seccomp: { profile: "/usr/share/containers/seccomp.json" },
    });
    expect(Object.values(full).map((e) => e.scope)).toEqual(["sandbox", "sandbox", "sandbox", "sandbox"]);
    const bare = describeSandboxEnforcement({
      cgroup: { reason: "the worker's cgroup v2 is not delegated to its user." },
      diskQuota: { reason: "this worker is not root." },
      seccomp: { reason: "python3 is not installed." },
    });
    expect(bare.memory).toMatchObject({ scope: "process" });
    expect(bare.memory.detail).toContain("not delegated");
    expect(bare.disk).toMatchObject({ scope: "file" });
    expect(bare.seccomp).toMatchObject({ scope: "none" });
  });

  it("ignores stored settings that no longer validate instead of applying half of them", () => {
    expect(resolveSandboxPolicy({ memoryMb: 1, outbound: true })).toEqual(SANDBOX_DEFAULTS);
    expect(resolveSandboxPolicy("nonsense")).toEqual(SANDBOX_DEFAULTS);
  });

  it("allows host loopback ports only together with outbound access", () => {
    expect(sandboxSettingsSchema.safeParse({ loopbackPorts: [5432] }).success).toBe(false);
    expect(sandboxSettingsSchema.safeParse({ outbound: true, loopbackPorts: [8080, 8080, 443] }).success).toBe(true);
    expect(resolveSandboxPolicy({ outbound: true, loopbackPorts: [8080, 8080, 443] }).loopbackPorts).toEqual([
      443, 8080,
    ]);
    expect(sandboxSettingsSchema.safeParse({ outbound: true, loopbackPorts: [70_000] }).success).toBe(false);
    expect(sandboxSettingsSchema.safeParse({ shell: true }).success).toBe(false);
  });
});

describe("buildSandboxedCommand", () => {
  it("runs the launch under bwrap with its own namespaces, no network and the limits set inside", () => {
    const { command, args: outer, argsFileContent } = buildSandboxedCommand(launch, SANDBOX_DEFAULTS, host, dirs);
    expect(command).toBe("/bin/sh");
    // bwrap's own arguments come from the args file (fd 3), its filter from the compiled program (fd 4).
    expect(outer.slice(2, 10)).toEqual([
      "sandbox",
      dirs.argsFile,
      host.seccomp,
      "/usr/bin/bwrap",
      "--args",
      "3",
      "--seccomp",
      "4",
    ]);
    const args = bwrapArgs(argsFileContent);
    for (const flag of [
      "--unshare-user",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-net",
      "--die-with-parent",
      "--disable-userns",
    ]) {
      expect(args).toContain(flag);
    }
    expect(after(args, "--uid")).toEqual([["1000"]]);
    const tail = outer.slice(outer.indexOf("--") + 1);
    // The server's output comes back to fd 1 inside (bwrap itself holds only /dev/null there): see OPEN_INPUTS.
    expect(tail.slice(0, 4)).toEqual(["/bin/sh", "-c", 'exec 1>&5 5>&- && exec "$@"', "sandbox"]);
    expect(tail.slice(4)).toEqual([
      "/usr/bin/prlimit",
      `--data=${1024 * MIB}`,
      "--nproc=256",
      "--nofile=1024",
      "--cpu=3600",
      `--fsize=${1024 * MIB}`,
      "--core=0",
      "--",
      "mcp-server-everything",
      "stdio",
    ]);
    // Nothing of the host's layout is on the command line the sandbox sees as its /proc/1/cmdline.
    expect(tail.join(" ")).not.toContain("/var/lib");
  });

  it("binds the system and the configured paths read-only, the instance's home and tmp writable, and nothing else", () => {
    const args = bwrapArgs(buildSandboxedCommand(launch, SANDBOX_DEFAULTS, host, dirs).argsFileContent);
    const readOnly = after(args, "--ro-bind", 2).concat(after(args, "--ro-bind-try", 2));
    expect(readOnly).toContainEqual(["/usr", "/usr"]);
    expect(readOnly).toContainEqual(["/opt/lib", "/opt/lib"]);
    expect(readOnly).toContainEqual(["/srv/app/node_modules", "/srv/app/node_modules"]);
    expect(readOnly).toContainEqual(["/etc/ssl", "/etc/ssl"]);
    expect(readOnly.map(([source]) => source)).not.toContain("/etc");
    expect(readOnly.map(([source]) => source)).not.toContain("/etc/shadow");
    expect(readOnly.map(([source]) => source)).not.toContain("/srv/app");
    expect(after(args, "--symlink", 2)).toEqual([["usr/bin", "/bin"]]);
    expect(after(args, "--bind", 2)).toEqual([
      [dirs.home, "/home/sandbox"],
      [dirs.tmp, "/tmp"],
    ]);
    expect(after(args, "--proc")).toEqual([["/proc"]]);
  });

  it("gives a throwaway sandbox home and tmp as tmpfs of the disk quota's size", () => {
    const policy = { ...SANDBOX_DEFAULTS, diskMb: 128 };
    const args = bwrapArgs(buildSandboxedCommand(launch, policy, host, { argsFile: dirs.argsFile }).argsFileContent);
    expect(after(args, "--bind", 2)).toEqual([]);
    expect(after(args, "--size", 3)).toEqual([
      [String(128 * MIB), "--tmpfs", "/home/sandbox"],
      [String(128 * MIB), "--tmpfs", "/tmp"],
    ]);
  });

  it("joins the launch's own cgroups before anything else runs, as the worker's user", () => {
    const procs = ["/sys/fs/cgroup/memory/sb/i1-ab/cgroup.procs", "/sys/fs/cgroup/pids/sb/i1-ab/cgroup.procs"];
    const { command, args } = buildSandboxedCommand(
      launch,
      SANDBOX_DEFAULTS,
      { ...host, runAs: { uid: 201234, gid: 201234 } },
      { ...dirs, cgroupProcs: procs },
    );
    expect(command).toBe("/bin/sh");
    expect(args.slice(2, 6)).toEqual(["sandbox", ...procs, "--"]);
    expect(args[6]).toBe("/usr/bin/setpriv");
  });

  it("builds the environment from the configured values and the sandbox's own PATH only", () => {
    const { env } = buildSandboxedCommand(launch, SANDBOX_DEFAULTS, host, dirs);
    expect(env).toEqual({
      PATH: host.path,
      HOME: "/home/sandbox",
      TMPDIR: "/tmp",
      USER: "sandbox",
      LOGNAME: "sandbox",
      LANG: "C.UTF-8",
      API_KEY: "k",
    });
  });

  it("with outbound access, shares pasta's network instead of none and forwards only the allowed host ports", () => {
    const policy = { ...SANDBOX_DEFAULTS, outbound: true, loopbackPorts: [8080, 9090] };
    const { command, args, argsFileContent } = buildSandboxedCommand(launch, policy, host, dirs);
    expect(command).toBe("/usr/bin/pasta");
    expect(bwrapArgs(argsFileContent)).not.toContain("--unshare-net");
    expect(args).toContain("--no-map-gw");
    expect(after(args, "-T")).toEqual([["8080,9090"]]);
    expect(after(args, "-t")).toEqual([["none"]]);
    expect(after(args, "-U")).toEqual([["none"]]);
    expect(args.indexOf("--no-map-gw")).toBeLessThan(args.indexOf("/usr/bin/bwrap"));
    expect(args.indexOf("--no-map-gw")).toBeLessThan(args.indexOf("/bin/sh"));
    expect(after(buildSandboxedCommand(launch, { ...policy, loopbackPorts: [] }, host, dirs).args, "-T")).toEqual([
      ["none"],
    ]);
  });

  it("drops to the given host user first when the worker is root", () => {
    const { command, args } = buildSandboxedCommand(
      launch,
      SANDBOX_DEFAULTS,
      { ...host, runAs: { uid: 201234, gid: 201234 } },
      dirs,
    );
    expect(command).toBe("/usr/bin/setpriv");
    expect(args.slice(0, 5)).toEqual(["--reuid=201234", "--regid=201234", "--clear-groups", "--", "/bin/sh"]);
  });
});
