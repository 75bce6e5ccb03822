import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../node_modules/.bin");

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function waitUntil(check: () => Promise<boolean>, what: string, deadlineMs = 20_000) {
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const answers = (url: string) => fetch(url, { method: "GET" }).then(() => true, () => false);

/**
 * The MCP reference server over Streamable HTTP as a real process the test can stop (like a crash: SIGKILL)
 * and start again on the same port.
 */
export class EverythingHttpServer {
  private child: ChildProcess | undefined;
  private constructor(readonly port: number) {}

  static async start(): Promise<EverythingHttpServer> {
    const server = new EverythingHttpServer(await freePort());
    await server.resume();
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  async resume(): Promise<void> {
    this.child = spawn(path.join(bin, "mcp-server-everything"), ["streamableHttp"], { env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", PORT: String(this.port), NODE_ENV: "production" }, stdio: "ignore" });
    await waitUntil(() => answers(this.url), `the upstream on port ${this.port}`);
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const gone = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await gone;
    await waitUntil(async () => !(await answers(this.url)), `port ${this.port} to close`);
  }
}
