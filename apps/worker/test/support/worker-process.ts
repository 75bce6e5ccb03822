import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { REDIS_URL } from "./harness";

const WORKER_DIR = path.resolve(import.meta.dirname, "../..");
const started = new Set<ChildProcess>();
/** Sandbox homes of the workers started here (removed by killWorkerProcesses). */
const sandboxDirs = new Set<string>();

export interface WorkerProcess {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: string | null }>;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Its pino log lines, parsed. */
  logs(): Array<Record<string, unknown> & { msg?: string }>;
  /** True while the process runs. */
  alive(): boolean;
}

/**
 * Starts the real entry point, `node --import tsx src/main.ts`, as one process (a signal reaches the worker
 * itself, not a launcher). DATABASE_URL and SWITCHBOARD_ENCRYPTION_KEY come from the test setup unless `env`
 * overrides them; no bridge. Resolves once it logged "worker started".
 */
export async function startWorkerProcess(opts: { prefix: string; env?: NodeJS.ProcessEnv }): Promise<WorkerProcess> {
  const sandboxDir = mkdtempSync(path.join(os.tmpdir(), "sb-worker-sandboxes-"));
  sandboxDirs.add(sandboxDir);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REDIS_URL,
    REDIS_PREFIX: opts.prefix,
    LOG_LEVEL: "info",
    WORKER_CONCURRENCY: "4",
    STDIO_SANDBOX_DIR: sandboxDir,
    EGRESS_ALLOW: "127.0.0.1:*",
    ...opts.env,
  };
  delete env.BRIDGE_SECRET;
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], { cwd: WORKER_DIR, env, stdio: ["ignore", "pipe", "pipe"] });
  started.add(child);
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  let out = "";
  child.stdout?.on("data", (d: Buffer) => void (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => void (out += d.toString()));
  const alive = () => child.exitCode === null && child.signalCode === null;
  await expect.poll(() => out.includes('"msg":"worker started"') || !alive(), { timeout: 30_000, interval: 100 }).toBe(true);
  if (!alive()) throw new Error(`worker exited at start-up:\n${out}`);
  return {
    child,
    exited,
    output: () => out,
    logs: () =>
      out
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as Record<string, unknown>];
          } catch {
            return [];
          }
        }),
    alive,
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
  for (const dir of sandboxDirs) rmSync(dir, { recursive: true, force: true });
  sandboxDirs.clear();
}
