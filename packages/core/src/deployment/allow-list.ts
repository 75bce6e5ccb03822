import { z } from "zod";

/**
 * Package launchers: programs that download a package from a registry and run it. The allow-list names the
 * packages they may run, never the launcher alone (a launcher allowed as such would run anything).
 * `npm x`, `bun x` and `uv tool run` are spelled `npm exec`, `bunx` and `uvx` here.
 */
export const LAUNCHERS = ["npx", "npm exec", "pnpm dlx", "yarn dlx", "bunx", "uvx", "pipx run"] as const;
export type Launcher = (typeof LAUNCHERS)[number];

/** Launchers that install from PyPI (names compared after PEP 503 normalisation); the others use npm's registry. */
export const PYTHON_LAUNCHERS: ReadonlySet<Launcher> = new Set(["uvx", "pipx run"]);

/** Programs that run other programs or packages: never allow-listed as executables (see LAUNCHERS). */
export const LAUNCHER_PROGRAMS: ReadonlySet<string> = new Set([
  "npx",
  "npm",
  "pnpm",
  "pnpx",
  "yarn",
  "bunx",
  "bun",
  "uvx",
  "uv",
  "pipx",
  "corepack",
]);

/** A bare program name (found on the worker's PATH) or an absolute path; no shell syntax, no `..`. */
const EXECUTABLE = /^(?:[A-Za-z0-9_+][A-Za-z0-9._+-]*|\/(?:[A-Za-z0-9._+@-]+\/)*[A-Za-z0-9._+@-]+)$/;
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
const PYPI_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

export function basename(command: string): string {
  return command.slice(command.lastIndexOf("/") + 1);
}

/** PEP 503: case-insensitive, runs of `-`, `_` and `.` are the same. */
export function normalizePackageName(launcher: Launcher, name: string): string {
  return PYTHON_LAUNCHERS.has(launcher) ? name.toLowerCase().replace(/[-_.]+/g, "-") : name.toLowerCase();
}

export const allowedCommandSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("executable"),
    name: z
      .string()
      .trim()
      .min(1, "Name the program.")
      .max(200)
      .refine(
        (n) => EXECUTABLE.test(n) && !n.split("/").includes(".."),
        "Use a program name (node) or an absolute path (/usr/bin/node), without spaces or shell syntax.",
      )
      .refine(
        (n) => !LAUNCHER_PROGRAMS.has(basename(n)),
        "A package launcher would run any package: add the packages it may run instead.",
      ),
  }),
  z
    .object({
      kind: z.literal("package"),
      launcher: z.enum(LAUNCHERS),
      name: z.string().trim().min(1, "Name the package.").max(214),
    })
    .superRefine((e, ctx) => {
      const ok = PYTHON_LAUNCHERS.has(e.launcher) ? PYPI_NAME.test(e.name) : NPM_NAME.test(e.name.toLowerCase());
      if (!ok) {
        ctx.addIssue({
          code: "custom",
          path: ["name"],
          message: PYTHON_LAUNCHERS.has(e.launcher)
            ? "Use a PyPI package name without a version (mcp-server-fetch)."
            : "Use an npm package name without a version (@modelcontextprotocol/server-everything).",
        });
      }
    }),
]);

export type AllowedCommand = z.infer<typeof allowedCommandSchema>;

/** Same entry (for de-duplication): executables by exact name, packages by launcher and normalised name. */
export function sameAllowedCommand(a: AllowedCommand, b: AllowedCommand): boolean {
  if (a.kind === "executable" || b.kind === "executable") return a.kind === b.kind && a.name === b.name;
  return (
    a.launcher === b.launcher && normalizePackageName(a.launcher, a.name) === normalizePackageName(b.launcher, b.name)
  );
}

/** Stored lists are re-checked when read: an entry that no longer parses allows nothing. */
export function parseAllowList(stored: unknown): AllowedCommand[] {
  if (!Array.isArray(stored)) return [];
  return stored.flatMap((entry) => {
    const parsed = allowedCommandSchema.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });
}

export function describeAllowedCommand(entry: AllowedCommand): string {
  return entry.kind === "executable" ? entry.name : `${entry.launcher} ${entry.name}`;
}
