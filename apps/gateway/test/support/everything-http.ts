import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { createRequire } from "node:module";

/** A port nothing listens on now (the server is told it; `mcp-server-everything` cannot report port 0's). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * `@modelcontextprotocol/server-everything` over Streamable HTTP in a process of its own: the reference server
 * of 2025-11-25, with its experimental tasks (`simulate-research-query`). `stop` kills it.
 */
export async function startEverythingHttp(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const entry = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");
  const child: ChildProcess = spawn(process.execPath, [entry, "streamableHttp"], {
    env: { PATH: process.env.PATH, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let said = "";
    const timer = setTimeout(() => reject(new Error(`server-everything did not start: ${said}`)), 15_000);
    child.stderr!.on("data", (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes("listening on port")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited (${code}): ${said}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    },
  };
}
