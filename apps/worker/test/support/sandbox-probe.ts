// Run as its own process (possibly as another user): starts a StdioSandbox like the worker does, runs two
// commands in it and prints one JSON line with what happened. Used by sandbox.test.ts for the non-root worker.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { StdioSandbox } from "../../src/sandbox";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "sb-probe-"));
try {
  const sandbox = await StdioSandbox.start({
    mode: "on",
    dataDir,
    logger: pino({ level: "silent" }),
  });
  const run = (script: string, settings: Record<string, unknown>) => {
    const launch = sandbox.wrap(
      "probe-instance",
      { transport: "stdio", command: "sh", args: ["-c", script], env: {} },
      settings,
    );
    const result = spawnSync(launch.command, launch.args, { env: launch.env, encoding: "utf8", timeout: 30_000 });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  const identity = run("id -u; ls /proc | grep -c '^[0-9]'", {});
  const bomb = run("for i in $(seq 100); do sleep 30 & done; echo survived", { processes: 16 });
  process.stdout.write(
    `${JSON.stringify({ workerUid: process.getuid?.(), status: sandbox.status, identity, bomb })}\n`,
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
