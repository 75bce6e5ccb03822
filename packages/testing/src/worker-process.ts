import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../../..");

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * The real worker as its own process, on this test run's database and Redis prefix, with its stdio bridge.
 * `readOnlyPaths`: directories its sandboxed stdio servers may read besides node and node_modules (a test's fixtures).
 */
export async function startWorkerProcess(env: { bridgeSecret: string; bridgePort: number; logLevel?: string; readOnlyPaths?: string[] }): Promise<{ pid: number; stop(): Promise<void>; output(): string }> {
  let output = "";
  // The worker runs stdio servers sandboxed; their homes go to a directory of this run's own.
  const sandboxDir = mkdtempSync(path.join(os.tmpdir(), "sb-web-sandboxes-"));
  const child: ChildProcess = spawn(path.join(root, "node_modules/.bin/tsx"), ["apps/worker/src/main.ts"], {
    cwd: root,
    env: {
      ...process.env,
      PATH: `${path.join(root, "node_modules/.bin")}:${process.env.PATH}`,
      BRIDGE_SECRET: env.bridgeSecret,
      BRIDGE_PORT: String(env.bridgePort),
      BRIDGE_HOST: "127.0.0.1",
      LOG_LEVEL: env.logLevel ?? "warn",
      STDIO_SANDBOX_DIR: sandboxDir,
      ...(env.readOnlyPaths ? { STDIO_SANDBOX_READONLY_PATHS: env.readOnlyPaths.join(":") } : {}),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  return {
    pid: child.pid!,
    output: () => output,
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await new Promise((r) => child.once("exit", r));
      }
      rmSync(sandboxDir, { recursive: true, force: true });
    },
  };
}
