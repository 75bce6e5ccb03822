import { spawn, type ChildProcess } from "node:child_process";
import { Redis } from "ioredis";
import { freePort } from "./net";
import { waitUntil } from "./wait";

/**
 * A private `redis-server` (a test file's, or `npm run chaos`'s), without persistence: killing it loses every key,
 * like a Redis restarted without RDB/AOF. `restart()` starts a fresh one on the same port. Never the shared Redis:
 * other test runs use that one.
 */
export class PrivateRedis {
  private child: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.spawn();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  private async spawn() {
    const child = spawn(
      "redis-server",
      ["--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no"],
      { stdio: "ignore" },
    );
    this.child = child;
    const probe = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on("error", () => {}); // "down" is the answer while it starts
    try {
      await waitUntil(async () => {
        if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
        return (
          (await probe.connect().then(
            () => probe.ping(),
            () => "down",
          )) === "PONG"
        );
      }, `redis-server on port ${this.port}`);
    } finally {
      probe.disconnect();
    }
  }

  /** SIGKILL: connections cut, data gone. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGKILL");
    });
  }

  async restart(): Promise<void> {
    await this.kill();
    await this.spawn();
  }
}
