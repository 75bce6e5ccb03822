import { spawn, type ChildProcess } from "node:child_process";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { StdioLaunch } from "./launch";
import { killGroup, killWithThisProcess, signalGroup } from "./process-group";
import { ProcessTransport, type TransportHooks } from "./process-transport";
import { DEFAULT_STDERR_TAIL, StderrTail, type StderrTailLimits } from "./stderr-tail";
import { DEFAULT_STDIO_LIMITS, WindowCounter, type StdioLimits } from "./limits";

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
  /**
   * A transport over the process's stdin/stdout. `close()` on it detaches, it does not kill. A server that
   * breaks a limit ends it with `onFault`: the caller stops the process.
   */
  createTransport(hooks?: TransportHooks): Transport;
  /** Kill the whole process group: SIGTERM, then SIGKILL after the grace period. */
  kill(graceMs: number): Promise<ProcessExit>;
}

export interface SpawnOptions {
  stderrTail?: StderrTailLimits;
  /** Variables inherited from the gateway's own environment before the launch env is applied. */
  inheritEnv?: readonly string[];
  /** What the server may write and leave unread (tests lower them). */
  limits?: Partial<StdioLimits>;
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
  const limits = { ...DEFAULT_STDIO_LIMITS, ...options.limits };
  return new SpawnedProcess(child, new StderrTail(options.stderrTail ?? DEFAULT_STDERR_TAIL), limits);
}

/** How long an exited process's stderr may take to deliver its last bytes before the exit is reported anyway. */
const STDERR_DRAIN_MS = 1_000;

class SpawnedProcess implements StdioProcessHandle {
  readonly pid: number;
  readonly exited: Promise<ProcessExit>;

  constructor(
    private readonly child: ChildProcess,
    private readonly tail: StderrTail,
    private readonly limits: StdioLimits,
  ) {
    if (child.pid === undefined) throw new Error("spawned process has no pid");
    this.pid = child.pid;
    // Its own group, so nothing kills it with us unless we do: on our exit, or a signal we die of.
    const release = killWithThisProcess(this.pid);
    this.readStderr();
    // Writes to a dead process fail with EPIPE; the exit is reported through `exited`, not as a crash of ours.
    child.stdin?.on("error", () => {});
    this.exited = new Promise((resolve) => {
      child.once("exit", (exitCode, signal) => {
        // Once the leader is gone, what is still in its group belongs to nobody: a sandbox wrapper's half-started
        // helper (pasta's namespace child when pasta fails), a server's background child. It goes too, whether the
        // leader exited by itself or was being stopped (the grace period was the leader's).
        signalGroup(this.pid, "SIGKILL");
        release();
        // What it wrote just before exiting may still be in the pipe ("exit" can come before stderr's last data):
        // the exit is reported once stderr has ended, so the crash carries its tail. Bounded, since a child that
        // left the group may hold the pipe open.
        void this.stderrEnded(STDERR_DRAIN_MS).then(() => resolve({ exitCode, signal }));
      });
    });
  }

  private stderrEnded(boundMs: number): Promise<void> {
    const stderr = this.child.stderr;
    if (!stderr || stderr.readableEnded || stderr.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, boundMs).unref();
      function done() {
        clearTimeout(timer);
        stderr!.off("end", done).off("close", done);
        resolve();
      }
      stderr.once("end", done).once("close", done);
    });
  }

  stderrTail(): string {
    return this.tail.text();
  }

  createTransport(hooks: TransportHooks = {}): Transport {
    const { stdin, stdout } = this.child;
    if (!stdin || !stdout) throw new Error("stdio server spawned without pipes");
    return new ProcessTransport({ stdin, stdout, exited: this.exited }, hooks, this.limits);
  }

  /**
   * Only the tail of stderr is kept, but reading it costs the host's time: beyond the rate bound the pipe is
   * paused until the window ends, so a process that floods its stderr waits in its writes instead.
   */
  private readStderr(): void {
    const stderr = this.child.stderr;
    if (!stderr) return;
    const read = new WindowCounter(this.limits.windowMs);
    stderr.on("data", (chunk: Buffer) => {
      this.tail.push(chunk);
      if (read.add(chunk.length) <= this.limits.maxStderrBytesPerWindow) return;
      stderr.pause();
      setTimeout(() => stderr.resume(), read.remainingMs()).unref();
    });
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
