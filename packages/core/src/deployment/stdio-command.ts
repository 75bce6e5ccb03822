import {
  basename,
  describeAllowedCommand,
  normalizePackageName,
  PYTHON_LAUNCHERS,
  type AllowedCommand,
  type Launcher,
} from "./allow-list";

/**
 * What a stdio template runs: a program, or packages fetched and run by a launcher. Everything after the
 * package is an argument of the package's server and not this policy's concern.
 */
export type StdioCommand =
  { kind: "executable"; name: string } | { kind: "package"; launcher: Launcher; packages: string[] };

export type StdioCommandDecision = { allowed: true; command: StdioCommand } | { allowed: false; reason: string };

const PLACEHOLDER = /\{\{[^}]*\}\}/;

/** `npm exec`-style launchers are a program plus a sub-command; the first arguments say which. */
const SUBCOMMANDS: ReadonlyArray<{ program: string; sub: readonly string[]; launcher: Launcher }> = [
  { program: "npm", sub: ["exec"], launcher: "npm exec" },
  { program: "npm", sub: ["x"], launcher: "npm exec" },
  { program: "pnpm", sub: ["dlx"], launcher: "pnpm dlx" },
  { program: "yarn", sub: ["dlx"], launcher: "yarn dlx" },
  { program: "bun", sub: ["x"], launcher: "bunx" },
  { program: "uv", sub: ["tool", "run"], launcher: "uvx" },
  { program: "pipx", sub: ["run"], launcher: "pipx run" },
];
const DIRECT: Readonly<Record<string, Launcher>> = { npx: "npx", bunx: "bunx", uvx: "uvx" };
const HOSTS: Readonly<Record<string, string>> = {
  npm: "npm exec",
  pnpm: "pnpm dlx",
  pnpx: "pnpm dlx",
  yarn: "yarn dlx",
  bun: "bunx",
  uv: "uvx",
  pipx: "pipx run",
  corepack: "npx",
};

/**
 * Options a launcher may take before the package. Only options that change neither which package is
 * fetched nor where from nor what runs: `--registry`, `--index-url`, `-c`/`--call` (a shell command),
 * `--package`/`--from`/`--spec` (they make the word after them any program, `sh` included) are refused.
 * `--with` (uvx) adds packages, which must be allow-listed too.
 */
const FLAGS: Readonly<Record<Launcher, { plain: readonly string[]; extraPackages?: readonly string[] }>> = {
  npx: {
    plain: [
      "-y",
      "--yes",
      "--no",
      "-q",
      "--quiet",
      "--silent",
      "--prefer-offline",
      "--prefer-online",
      "--offline",
      "--ignore-existing",
    ],
  },
  "npm exec": {
    plain: ["-y", "--yes", "--no", "-q", "--quiet", "--silent", "--prefer-offline", "--prefer-online", "--offline"],
  },
  "pnpm dlx": { plain: ["--silent", "-s"] },
  "yarn dlx": { plain: ["-q", "--quiet"] },
  bunx: { plain: ["--bun", "--silent"] },
  uvx: { plain: ["-q", "--quiet", "--isolated", "--offline", "--no-cache", "--refresh"], extraPackages: ["--with"] },
  "pipx run": { plain: ["-q", "--quiet", "--no-cache"] },
};

// npm: name[@version or range]; PyPI: name[extras][==version | @version], no URLs or paths.
const NPM_SPEC = /^((?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*)(?:@[A-Za-z0-9._~^*+<>=|-]+)?$/i;
const PYPI_SPEC =
  /^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)(?:\[[A-Za-z0-9._,-]*\])?(?:@[A-Za-z0-9.*+!_-]+|(?:(?:===|==|~=|!=|>=|<=|<|>)[A-Za-z0-9.*+!_-]+)(?:,(?:===|==|~=|!=|>=|<=|<|>)[A-Za-z0-9.*+!_-]+)*)?$/;

/** The package name of a launcher argument (`@scope/pkg@1.2.3` -> `@scope/pkg`), or null when it is not one. */
export function packageNameOf(launcher: Launcher, spec: string): string | null {
  const m = (PYTHON_LAUNCHERS.has(launcher) ? PYPI_SPEC : NPM_SPEC).exec(spec);
  return m?.[1] ?? null;
}

function refuse(reason: string): StdioCommandDecision {
  return { allowed: false, reason };
}

/**
 * Reads a stdio template's command and arguments as the worker will run them (no shell: the command is one
 * program, the arguments are passed as they are). Placeholders (`{{key}}`) are refused wherever they would
 * decide what runs: in the command, and before or in a launcher's package.
 */
export function parseStdioCommand(
  command: string,
  args: readonly string[],
): { ok: true; command: StdioCommand } | { ok: false; reason: string } {
  if (command.trim() === "") return { ok: false, reason: "A stdio server needs a command to run." };
  if (/\s/.test(command))
    return { ok: false, reason: "The command is one program; put its arguments in the argument list." };
  if (PLACEHOLDER.test(command))
    return { ok: false, reason: "The command cannot come from a setting: write the program's name." };
  const program = basename(command);

  let launcher: Launcher | undefined = DIRECT[program];
  let rest = [...args];
  if (!launcher) {
    const sub = SUBCOMMANDS.find((s) => s.program === program && s.sub.every((word, i) => args[i] === word));
    if (sub) {
      launcher = sub.launcher;
      rest = args.slice(sub.sub.length);
    } else if (HOSTS[program]) {
      return {
        ok: false,
        reason: `${program} may only run allow-listed packages, through “${HOSTS[program]} <package>”.`,
      };
    } else {
      return { ok: true, command: { kind: "executable", name: command } };
    }
  }

  const flags = FLAGS[launcher];
  const packages: string[] = [];
  let i = 0;
  for (; i < rest.length; i++) {
    const arg = rest[i]!;
    if (PLACEHOLDER.test(arg))
      return {
        ok: false,
        reason: `The package ${launcher} runs (and the options before it) cannot come from a setting: write them in the template.`,
      };
    if (arg === "--") {
      i++;
      break;
    }
    if (!arg.startsWith("-")) break;
    const [flag, inline] = arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg, undefined];
    if (flags.plain.includes(arg)) continue;
    if (flags.extraPackages?.includes(flag)) {
      const value = inline ?? rest[++i];
      if (value === undefined || PLACEHOLDER.test(value))
        return { ok: false, reason: `${flag} needs a package written in the template.` };
      packages.push(...value.split(","));
      continue;
    }
    return {
      ok: false,
      reason: `The ${launcher} option “${flag}” is not allowed before the package: it could change what runs or where it is downloaded from.`,
    };
  }
  const main = rest[i];
  if (main === undefined) return { ok: false, reason: `Name the package ${launcher} runs as its first argument.` };
  if (PLACEHOLDER.test(main))
    return { ok: false, reason: `The package ${launcher} runs cannot come from a setting: write it in the template.` };
  packages.unshift(main);

  const names: string[] = [];
  for (const spec of packages) {
    const name = packageNameOf(launcher, spec.trim());
    if (!name) {
      return {
        ok: false,
        reason: `“${spec}” is not a ${PYTHON_LAUNCHERS.has(launcher) ? "PyPI" : "npm"} package name (with an optional version); URLs, paths and git sources are not allowed.`,
      };
    }
    names.push(name);
  }
  return { ok: true, command: { kind: "package", launcher, packages: names } };
}

/**
 * Environment variables a template may not set on a stdio server: they change what an allowed program loads
 * (preloaded libraries, Node or Python startup code, module paths) or where a launcher downloads from, which
 * would undo the allow-list.
 */
const LOADER_ENV = [
  /^LD_/,
  /^DYLD_/,
  /^NODE_OPTIONS$/,
  /^NODE_PATH$/,
  /^NODE_EXTRA_CA_CERTS$/,
  /^NPM_CONFIG_/,
  /^YARN_/,
  /^PNPM_/,
  /^BUN_/,
  /^COREPACK_/,
  /^UV_/,
  /^PIP_/,
  /^PIPX_/,
  /^PYTHON/,
  /^PATH$/,
  /^BASH_ENV$/,
  /^ENV$/,
];

export function forbiddenEnvKey(key: string): boolean {
  const upper = key.toUpperCase();
  return LOADER_ENV.some((re) => re.test(upper));
}

/**
 * Decides whether a stdio server may run: the team must be allowed stdio servers, the command (a program, or a
 * launcher and its packages) must be on the deployment's allow-list, and no environment field may change what
 * the program loads. Pure: the web checks templates and installations with it, the worker every launch.
 */
export function checkStdioCommand(input: {
  command: string;
  args: readonly string[];
  envKeys?: readonly string[];
  allowList: readonly AllowedCommand[];
  teamStdioAllowed: boolean;
}): StdioCommandDecision {
  if (!input.teamStdioAllowed) {
    return refuse("This team may not run stdio servers; a deployment owner can allow it in the deployment settings.");
  }
  const parsed = parseStdioCommand(input.command, input.args);
  if (!parsed.ok) return refuse(parsed.reason);
  const badEnv = (input.envKeys ?? []).find(forbiddenEnvKey);
  if (badEnv) return refuse(`A stdio server's settings cannot set ${badEnv}: it changes what the program loads.`);

  const command = parsed.command;
  if (command.kind === "executable") {
    const ok = input.allowList.some((e) => e.kind === "executable" && e.name === command.name);
    return ok
      ? { allowed: true, command }
      : refuse(
          `“${command.name}” is not on this deployment's list of allowed commands; ask a deployment owner to add it.`,
        );
  }
  const launcher = command.launcher;
  const missing = command.packages.filter(
    (name) =>
      !input.allowList.some(
        (e) =>
          e.kind === "package" &&
          e.launcher === launcher &&
          normalizePackageName(launcher, e.name) === normalizePackageName(launcher, name),
      ),
  );
  if (missing.length > 0) {
    const list = missing.map((m) => describeAllowedCommand({ kind: "package", launcher, name: m })).join(", ");
    return refuse(`“${list}” is not on this deployment's list of allowed commands; ask a deployment owner to add it.`);
  }
  return { allowed: true, command };
}

/** Thrown by the worker when a launch is refused: its message is the instance's status message. */
export class CommandNotAllowedError extends Error {
  override readonly name = "CommandNotAllowedError";
  constructor(reason: string) {
    super(`Not started: ${reason}`);
  }
}
