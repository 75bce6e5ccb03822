import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import net from "node:net";

/**
 * The Next server (console, auth, tRPC, OAuth callback) as a child of the web process, listening on 127.0.0.1
 * only. It runs in its own process so that the MCP route's event loop carries none of Next's per-request
 * machinery: with Next loaded, every promise in the process pays for its AsyncLocalStorage hooks, and that
 * alone added about 0.8 ms to each proxied call (see the README's benchmark section).
 */
export interface NextProcess {
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
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

export async function startNext(options: { dir: string; dev: boolean; port?: number; timeoutMs?: number }): Promise<NextProcess> {
  const port = options.port || (await freePort());
  const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
  const child = spawn(process.execPath, [nextBin, options.dev ? "dev" : "start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: options.dir,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, PORT: String(port) },
    // Its own process group, so that whatever Next starts goes down with it.
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  while (!(await answers(port))) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the console server exited during start (${child.exitCode ?? child.signalCode})`);
    if (Date.now() > deadline) {
      kill(child, "SIGKILL");
      throw new Error(`the console server did not listen on 127.0.0.1:${port} within ${options.timeoutMs ?? 120_000} ms`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  return {
    port,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      kill(child, "SIGTERM");
      const timer = setTimeout(() => kill(child, "SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function kill(child: ChildProcess, signal: NodeJS.Signals) {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}
