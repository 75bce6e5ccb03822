import { accessSync, constants, existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";
import type { SandboxHost } from "@switchboard/core/sandbox";

const TOOL_DIRS = ["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"];

function findTool(name: string): string | undefined {
  for (const dir of TOOL_DIRS) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Top-level system entries besides /usr: merged-/usr links are recreated as links, real directories bound. */
function systemEntries(): SandboxHost["systemEntries"] {
  const entries: Array<{ path: string; symlinkTo?: string }> = [];
  for (const entry of ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]) {
    try {
      const stat = lstatSync(entry);
      entries.push(stat.isSymbolicLink() ? { path: entry, symlinkTo: readlinkSync(entry) } : { path: entry });
    } catch {
      // absent on this host
    }
  }
  return entries;
}

/**
 * The read-only paths a stdio server gets besides the system: node's install prefix (when it is not under
 * /usr) and every `node_modules` directory from the worker's code up to the file system root, so a template's
 * `mcp-server-everything` or `node <package>/dist/index.js` finds its packages. Never a project directory as a
 * whole: a path that holds a `.env` (or is an ancestor of the worker's working directory) is refused, since
 * that is where the deployment keeps its secrets.
 */
export function defaultReadOnlyPaths(from: string = import.meta.dirname): string[] {
  const paths: string[] = [];
  const prefix = path.dirname(path.dirname(realpathSync(process.execPath)));
  if (!(prefix === "/usr" || prefix.startsWith("/usr/"))) paths.push(prefix);
  for (let dir = from; ; dir = path.dirname(dir)) {
    const modules = path.join(dir, "node_modules");
    if (existsSync(modules)) paths.push(modules);
    if (path.dirname(dir) === dir) break;
  }
  return paths;
}

const contains = (dir: string, inner: string) => {
  const rel = path.relative(dir, inner);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
};

/**
 * Why a configured read-only path would expose the deployment's files, or undefined when it is fine: the whole
 * file system, a directory holding a `.env`, or one that contains the worker's working directory or its code
 * (the project, with its `.env` and configuration).
 */
export function unsafeReadOnlyPath(
  candidate: string,
  workerCwd: string = process.cwd(),
  workerCode: string = import.meta.dirname,
): string | undefined {
  const resolved = path.resolve(candidate);
  if (resolved === "/") return "it is the whole file system";
  if (existsSync(path.join(resolved, ".env"))) return "it holds a .env file";
  if (contains(resolved, path.resolve(workerCwd))) return "it contains the worker's working directory";
  if (contains(resolved, workerCode)) return "it contains the worker's code (the project directory)";
  return undefined;
}

export interface HostTools {
  bwrap?: string;
  pasta?: string;
  setpriv?: string;
  prlimit?: string;
  sh?: string;
  /** Debian's python3, with libseccomp's binding (python3-seccomp): compiles the seccomp profile at start. */
  python3?: string;
  /** e2fsprogs and util-linux: the per-instance file system of the disk quota (root only). */
  mkfs?: string;
  mount?: string;
  umount?: string;
  e2fsck?: string;
  resize2fs?: string;
}

export function findHostTools(): HostTools {
  return {
    bwrap: findTool("bwrap"),
    pasta: findTool("pasta"),
    setpriv: findTool("setpriv"),
    prlimit: findTool("prlimit"),
    sh: findTool("sh"),
    python3: findTool("python3"),
    mkfs: findTool("mkfs.ext4"),
    mount: findTool("mount"),
    umount: findTool("umount"),
    e2fsck: findTool("e2fsck"),
    resize2fs: findTool("resize2fs"),
  };
}

/**
 * PATH inside the sandbox: node's own bin directory, the `.bin` folders of the node_modules it is given (a
 * template's `mcp-server-everything`), then the system's. Never the worker's PATH (a user's shims, tool folders).
 */
export function sandboxPath(readOnlyPaths: readonly string[], execPath: string = process.execPath): string {
  const dirs = [path.dirname(realpathSync(execPath)), path.dirname(execPath)];
  for (const dir of readOnlyPaths) if (path.basename(dir) === "node_modules") dirs.push(path.join(dir, ".bin"));
  dirs.push("/usr/local/bin", "/usr/bin", "/bin");
  return [...new Set(dirs)].filter((dir) => dir === "/bin" || dir.startsWith("/usr/") || existsSync(dir)).join(":");
}

export function hostLayout(): Pick<SandboxHost, "systemEntries"> {
  return { systemEntries: systemEntries() };
}
