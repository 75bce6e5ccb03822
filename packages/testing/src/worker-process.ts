import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { removeSandboxDir } from "./sandbox-dir";
import { waitUntil } from "./wait";

const WORKER_DIR = path.resolve(import.meta.dirname, "../../../apps/worker");
const started = new Set<ChildProcess>();
/** Sandbox homes of the workers started here (removed by stop() or killWorkerProcesses). */
const sandboxDirs = new Set<string>();

export interface WorkerProcessOptions {
  /** Redis namespace; the test run's (REDIS_PREFIX from the test env) by default. */
  prefix?: string;
  /** The internal stdio bridge: off unless both are given. */
  bridgeSecret?: string;
  bridgePort?: number;
  /** "info" (the default) or more verbose: the start is awaited on the "worker started" line. */
  logLevel?: "info" | "debug" | "trace";
  /** Directories its sandboxed stdio servers may read besides node and node_modules (a test's fixtures). */
  readOnlyPaths?: string[];
  /** Where it answers /healthz and /readyz (WORKER_HEALTH_PORT); off by default (3003 may be taken here). */
  healthPort?: number;
  /** Anything else (DATABASE_URL through a proxy, a private Redis, a short lock duration). */
  env?: NodeJS.ProcessEnv;
}

export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  exited: Promise<{ code: number | null; signal: string | null }>;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Its pino log lines, parsed. */
  logs(): Array<Record<string, unknown> & { msg?: string }>;
  /** True while the process runs. */
  alive(): boolean;
  /** SIGTERM, wait for the exit, remove its sandbox homes. */
  stop(): Promise<void>;
}

/**
 * The real worker, `node --import tsx src/main.ts`, as one process (a signal reaches the worker itself, not a
 * launcher), on this test run's database and Redis prefix unless `env` overrides them. Its stdio servers run
 * sandboxed, their homes in a directory of this run's own. Resolves once it logged "worker started".
 */
export async function startWorkerProcess(opts: WorkerProcessOptions = {}): Promise<WorkerProcess> {
  const sandboxDir = mkdtempSync(path.join(os.tmpdir(), "sb-worker-sandboxes-"));
  sandboxDirs.add(sandboxDir);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REDIS_URL: process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
    PATH: `${path.resolve(WORKER_DIR, "../../node_modules/.bin")}:${process.env.PATH}`,
    ...(opts.prefix ? { REDIS_PREFIX: opts.prefix } : {}),
    LOG_LEVEL: opts.logLevel ?? "info",
    WORKER_CONCURRENCY: "4",
    STDIO_SANDBOX_DIR: sandboxDir,
    EGRESS_ALLOW: "127.0.0.1:*",
    WORKER_HEALTH_PORT: opts.healthPort === undefined ? "off" : String(opts.healthPort),
    ...(opts.readOnlyPaths ? { STDIO_SANDBOX_READONLY_PATHS: opts.readOnlyPaths.join(":") } : {}),
  };
  delete env.BRIDGE_SECRET;
  if (opts.bridgeSecret && opts.bridgePort !== undefined) {
    Object.assign(env, {
      BRIDGE_SECRET: opts.bridgeSecret,
      BRIDGE_PORT: String(opts.bridgePort),
      BRIDGE_HOST: "127.0.0.1",
    });
  }
  Object.assign(env, opts.env);
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: WORKER_DIR,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.add(child);
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  let out = "";
  child.stdout?.on("data", (d: Buffer) => void (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => void (out += d.toString()));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const logs = () =>
    out
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as Record<string, unknown> & { msg?: string }];
        } catch {
          return [];
        }
      });
  await waitUntil(() => !alive() || out.includes('"msg":"worker started"'), "the worker to start", 30_000, 100);
  if (!alive()) throw new Error(`worker exited at start-up:\n${out}`);
  return {
    child,
    pid: child.pid!,
    exited,
    output: () => out,
    logs,
    alive,
    async stop() {
      if (alive()) {
        child.kill("SIGTERM");
        await exited;
      }
      started.delete(child);
      removeSandboxDir(sandboxDir);
      sandboxDirs.delete(sandboxDir);
    },
  };
}

/** SIGKILLs every worker process still running (afterAll). */
export async function killWorkerProcesses(): Promise<void> {
  const running = [...started].filter((c) => c.exitCode === null && c.signalCode === null);
  await Promise.all(
    running.map(
      (c) =>
        new Promise<void>((resolve) => {
          c.once("exit", () => resolve());
          c.kill("SIGKILL");
        }),
    ),
  );
  started.clear();
  for (const dir of sandboxDirs) removeSandboxDir(dir);
  sandboxDirs.clear();
}
