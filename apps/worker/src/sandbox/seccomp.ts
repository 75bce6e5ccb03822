import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

/** The containers project's default profile, as Debian's golang-github-containers-common installs it. */
export const DEFAULT_SECCOMP_PROFILE = "/usr/share/containers/seccomp.json";

const COMPILER = path.join(import.meta.dirname, "seccomp-compile.py");

/**
 * Compiles the seccomp profile once, at worker start, into `<dataDir>/seccomp.bpf` (readable by every sandbox
 * user: bwrap opens it as the sandbox's host user), with libseccomp's Python binding. The program is the same for
 * every launch; bwrap loads it with `--seccomp` right before it runs the server.
 */
export function compileSeccomp(
  profile: string,
  dataDir: string,
  python: string | undefined,
): { file: string; profile: string } | { reason: string } {
  if (!existsSync(profile))
    return { reason: `the profile ${profile} is not there (Debian: apt-get install golang-github-containers-common).` };
  if (!python) return { reason: "python3 is not installed (Debian: apt-get install python3-seccomp)." };
  const file = path.join(dataDir, "seccomp.bpf");
  const result = spawnSync(python, [COMPILER, profile, file], { encoding: "utf8", timeout: 30_000 });
  const last = (result.stdout ?? "").trim().split("\n").at(-1) ?? "";
  let report: { ok?: boolean; error?: string } = {};
  try {
    report = JSON.parse(last) as typeof report;
  } catch {
    // no JSON: the interpreter itself failed (the module missing, say)
  }
  if (result.status === 0 && report.ok) return { file, profile };
  const detail = report.error ?? (result.stderr || result.error?.message || "").trim().split("\n").at(-1) ?? "";
  return {
    reason: /No module named .?seccomp/.test(detail)
      ? "libseccomp's Python binding is not installed (Debian: apt-get install python3-seccomp)."
      : `the profile ${profile} could not be compiled (${detail.slice(0, 200)}).`,
  };
}
