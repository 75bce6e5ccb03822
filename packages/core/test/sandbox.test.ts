import { describe, expect, it } from "vitest";
import {
  buildSandboxedCommand,
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
  systemEntries: [{ path: "/bin", symlinkTo: "usr/bin" }, { path: "/opt/lib" }],
  readOnlyPaths: ["/srv/app/node_modules"],
  path: "/srv/app/node_modules/.bin:/usr/bin:/bin",
};
const dirs = { home: "/var/lib/switchboard/sandboxes/i1/home", tmp: "/var/lib/switchboard/sandboxes/i1/tmp" };
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
    const { command, args } = buildSandboxedCommand(launch, SANDBOX_DEFAULTS, host, dirs);
    expect(command).toBe("/usr/bin/bwrap");
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
    const tail = args.slice(args.indexOf("--") + 1);
    expect(tail).toEqual([
      "/usr/bin/prlimit",
      `--data=${1024 * 1024 * 1024}`,
      "--nproc=256",
      "--nofile=1024",
      "--cpu=3600",
      "--core=0",
      "--",
      "mcp-server-everything",
      "stdio",
    ]);
  });

  it("binds the system and the configured paths read-only, the instance's home and tmp writable, and nothing else", () => {
    const { args } = buildSandboxedCommand(launch, SANDBOX_DEFAULTS, host, dirs);
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

  it("builds the environment from the configured values and a minimal base only", () => {
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
    const { command, args } = buildSandboxedCommand(launch, policy, host, dirs);
    expect(command).toBe("/usr/bin/pasta");
    expect(args).not.toContain("--unshare-net");
    expect(args).toContain("--no-map-gw");
    expect(after(args, "-T")).toEqual([["8080,9090"]]);
    expect(after(args, "-t")).toEqual([["none"]]);
    expect(after(args, "-U")).toEqual([["none"]]);
    expect(args.indexOf("--no-map-gw")).toBeLessThan(args.indexOf("/usr/bin/bwrap"));
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
    expect(args.slice(0, 5)).toEqual(["--reuid=201234", "--regid=201234", "--clear-groups", "--", "/usr/bin/bwrap"]);
  });
});
