import { spawn, type ChildProcess } from "node:child_process";
import { freePort } from "@switchboard/testing/net";
import { waitUntil } from "@switchboard/testing/wait";
import path from "node:path";
import { fileURLToPath } from "node:url";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../node_modules/.bin");

const answers = (url: string) =>
  fetch(url, { method: "GET" }).then(
    () => true,
    () => false,
  );

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
    this.child = spawn(path.join(bin, "mcp-server-everything"), ["streamableHttp"], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", PORT: String(this.port) } as Record<
        string,
        string
      > as NodeJS.ProcessEnv,
      stdio: "ignore",
    });
    await waitUntil(() => answers(this.url), `the upstream on port ${this.port}`, 20_000, 100);
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const gone = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await gone;
    await waitUntil(async () => !(await answers(this.url)), `port ${this.port} to close`, 20_000, 100);
  }
}
