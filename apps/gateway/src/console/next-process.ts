import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import { freePort } from "@switchboard/runtime/net";
import path from "node:path";
import { backoffDelay } from "@switchboard/core/policies";

/**
 * The Next server (console, auth, tRPC, OAuth callback) as a child of the gateway process, listening on 127.0.0.1
 * only. It runs in its own process so that the MCP route's event loop carries none of Next's per-request
 * machinery: with Next loaded, every promise in the process pays for its AsyncLocalStorage hooks (see the
 * README's benchmark section), and a slow page render cannot stall the calls in flight.
 *
 * When the child dies it is started again on the same port, with backoff; the MCP route keeps serving and the
 * console answers 502 for the few seconds in between.
 */
export interface ConsoleProcess {
  port: number;
  /** Times the child was started again after dying. */
  readonly restarts: number;
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

export interface ConsoleProcessOptions {
  dir: string;
  dev: boolean;
  port?: number;
  startTimeoutMs?: number;
  /** The command to supervise (tests); by default Next's standalone server, or `next dev -p PORT -H 127.0.0.1`. */
  command?: (port: number) => ConsoleCommand;
  onRestart?: (info: { code: number | null; signal: NodeJS.Signals | null; delayMs: number }) => void;
  /** Backoff between restarts: doubles from `minMs` to `maxMs`, back to `minMs` after a minute of uptime. */
  backoff?: { minMs: number; maxMs: number };
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * Where `next build` (with `output: "standalone"`) leaves the console's production server: Next's standalone
 * tree mirrors the repository from its root, so the server sits under the console's path within it.
 */
export function standaloneServer(dir: string): string {
  return path.join(dir, ".next/standalone/apps/web/server.js");
}

/** A console child to run: the executable, its arguments and what it gets on top of this process's environment. */
export interface ConsoleCommand {
  file: string;
  args: string[];
  env?: Record<string, string>;
}

function nextCommand(dir: string, dev: boolean): (port: number) => ConsoleCommand {
  if (!dev) {
    // Production: Next's standalone server, plain node with the node_modules Next traced into it (no `next` CLI).
    // It reads its port and address from PORT and HOSTNAME.
    const server = standaloneServer(dir);
    if (!existsSync(server))
      throw new Error(`the console has no production build (${server} is missing): run \`npm run build\` first`);
    return () => ({ file: process.execPath, args: [server], env: { HOSTNAME: "127.0.0.1" } });
  }
  // Development: the console's own Next, resolved from its folder.
  const nextBin = createRequire(path.join(dir, "package.json")).resolve("next/dist/bin/next");
  return (port: number) => ({
    file: process.execPath,
    args: [nextBin, "dev", "-p", String(port), "-H", "127.0.0.1"],
  });
}

function kill(child: ChildProcess, signal: NodeJS.Signals) {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

const isRunning = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** Starts the console child and resolves once it accepts connections (rejects if it dies or times out first). */
export async function startConsole(options: ConsoleProcessOptions): Promise<ConsoleProcess> {
  const port = options.port || (await freePort());
  const command = (options.command ?? nextCommand(options.dir, options.dev))(port);
  const backoff = options.backoff ?? { minMs: 1_000, maxMs: 30_000 };
  let child: ChildProcess;
  let stopping = false;
  let restarts = 0;
  let attempt = 0;
  let startedAt = 0;
  let timer: NodeJS.Timeout | undefined;
  // A console that cannot start (no build, bad configuration) fails the start instead of restarting forever.
  let ready = false;

  // A node child gets the watch that ends it with this process (see exit-with-parent.cjs).
  const args =
    command.file === process.execPath
      ? ["--require", path.join(import.meta.dirname, "exit-with-parent.cjs"), ...command.args]
      : command.args;
  const launch = () => {
    startedAt = Date.now();
    child = spawn(command.file, args, {
      cwd: options.dir,
      stdio: ["ignore", "inherit", "inherit"],
      // The console child gets this process's whole environment (it parses it itself), on its own port.
      // eslint-disable-next-line no-restricted-syntax -- passes the environment on to a child; reads no setting
      env: { ...process.env, ...command.env, PORT: String(port) },
      // Its own process group, so that whatever Next starts goes down with it.
      detached: true,
    });
    child.once("exit", (code, signal) => {
      if (stopping || !ready) return;
      if (Date.now() - startedAt > 60_000) attempt = 0;
      const delay = backoffDelay({ baseMs: backoff.minMs, maxMs: backoff.maxMs }, attempt++);
      options.onRestart?.({ code, signal, delayMs: delay });
      timer = setTimeout(() => {
        timer = undefined;
        if (stopping) return;
        restarts++;
        launch();
      }, delay);
    });
  };
  launch();

  const timeoutMs = options.startTimeoutMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  while (!(await answers(port))) {
    if (!isRunning(child!)) {
      stopping = true;
      throw new Error(`the console server exited during start (${child!.exitCode ?? child!.signalCode})`);
    }
    if (Date.now() > deadline) {
      stopping = true;
      kill(child!, "SIGKILL");
      throw new Error(`the console server did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  ready = true;

  return {
    port,
    get restarts() {
      return restarts;
    },
    get pid() {
      return child.pid;
    },
    async stop() {
      stopping = true;
      clearTimeout(timer);
      const current = child;
      if (!isRunning(current)) return;
      const exited = new Promise<void>((resolve) => current.once("exit", () => resolve()));
      kill(current, "SIGTERM");
      const force = setTimeout(() => kill(current, "SIGKILL"), 10_000);
      await exited;
      clearTimeout(force);
    },
  };
}
