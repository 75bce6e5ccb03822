import { spawn, type ChildProcess } from "node:child_process";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { StdioLaunch } from "./launch";
import { killGroup, signalGroup } from "./process-group";
import { ProcessTransport, type TransportHooks } from "./process-transport";
import { DEFAULT_STDERR_TAIL, StderrTail, type StderrTailLimits } from "./stderr-tail";

export interface ProcessExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

/** What the supervisor needs from a running stdio server; a fake implements it in fake-timer tests. */
export interface StdioProcessHandle {
  readonly pid: number;
  /** Settles once when the process has exited (whoever caused it). */
  readonly exited: Promise<ProcessExit>;
  stderrTail(): string;
  /** A transport over the process's stdin/stdout. `close()` on it detaches, it does not kill. */
  createTransport(hooks?: TransportHooks): Transport;
  /** Kill the whole process group: SIGTERM, then SIGKILL after the grace period. */
  kill(graceMs: number): Promise<ProcessExit>;
}

export interface SpawnOptions {
  stderrTail?: StderrTailLimits;
  /** Variables inherited from the gateway's own environment before the launch env is applied. */
  inheritEnv?: readonly string[];
}

/** Only a few variables leak from the gateway into a server: secrets in our env are none of its business. */
export const DEFAULT_INHERITED_ENV = ["PATH", "HOME", "LANG", "TERM", "TMPDIR", "USER", "SHELL", "LOGNAME"] as const;

/** Spawn a stdio MCP server detached in its own process group and resolve once the OS has started it. */
export async function spawnStdioProcess(launch: StdioLaunch, options: SpawnOptions = {}): Promise<StdioProcessHandle> {
  const env: Record<string, string> = {};
  for (const key of options.inheritEnv ?? DEFAULT_INHERITED_ENV) {
    // eslint-disable-next-line no-restricted-syntax -- copies the named variables to the child; reads no setting
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  Object.assign(env, launch.env);

  // Typed as ProcessEnv: apps that augment it (Next requires NODE_ENV) compile this file too.
  const child = spawn(launch.command, launch.args, {
    env: env as NodeJS.ProcessEnv,
    cwd: launch.cwd,
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
    shell: false,
  });
  await new Promise<void>((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", reject);
  });
  return new SpawnedProcess(child, new StderrTail(options.stderrTail ?? DEFAULT_STDERR_TAIL));
}

class SpawnedProcess implements StdioProcessHandle {
  readonly pid: number;
  readonly exited: Promise<ProcessExit>;

  constructor(
    private readonly child: ChildProcess,
    private readonly tail: StderrTail,
  ) {
    if (child.pid === undefined) throw new Error("spawned process has no pid");
    this.pid = child.pid;
    child.stderr?.on("data", (chunk: Buffer) => tail.push(chunk));
    // Writes to a dead process fail with EPIPE; the exit is reported through `exited`, not as a crash of ours.
    child.stdin?.on("error", () => {});
    this.exited = new Promise((resolve) => {
      child.once("exit", (exitCode, signal) => {
        // What is left of its group has no owner now: a crashed server's children, or the stub pasta forks for the
        // sandbox and leaves behind when it fails (no usable /dev/net/tun). Nobody would ever stop them.
        signalGroup(this.pid, "SIGKILL");
        resolve({ exitCode, signal });
      });
    });
  }

  stderrTail(): string {
    return this.tail.text();
  }

  createTransport(hooks: TransportHooks = {}): Transport {
    const { stdin, stdout } = this.child;
    if (!stdin || !stdout) throw new Error("stdio server spawned without pipes");
    return new ProcessTransport({ stdin, stdout, exited: this.exited }, hooks);
  }

  async kill(graceMs: number): Promise<ProcessExit> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.stdin?.end();
    }
    // The group may outlive its leader (a shell's children), so signal it even when the leader is gone.
    await killGroup(this.pid, graceMs);
    return this.exited;
  }
}
