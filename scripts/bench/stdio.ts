/**
 * Stdio benchmark, side by side with a peer: the same stdio echo server (`stdio-echo.mjs`) behind `mcp-proxy`
 * (npm, punkpeye's single-server bridge: Streamable HTTP in front of one stdio process) and behind the hosted
 * route (route process -> the worker's internal bridge -> the server in its bubblewrap sandbox), in the same run.
 * The route adds what mcp-proxy has none of: authentication, per-member routing, policies, the request log and
 * the sandbox. Both run as they ship: mcp-proxy's CLI, the route and the worker as production bundles.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { setTeamStdioAllowed } from "@switchboard/db/queries/deployment";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { allowCommands, makeAccessToken, makeTeam, makeUser } from "@switchboard/db/testing";
import { freePort } from "@switchboard/testing/net";
import { removeSandboxDir } from "@switchboard/testing/sandbox-dir";
import { alternating, concurrent, connect, CpuMeter, echo } from "./clients";
import { bundled, callCounts, openStage, profiled, root, waitForHttp } from "./stage";
import { compareRow, ms, perSecond, table } from "./stats";

const ECHO = path.join(import.meta.dirname, "stdio-echo.mjs");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves once the child wrote `line` (to stdout or stderr), or fails with what it wrote when it exits first. */
function waitForLine(child: ChildProcess, line: string, what: string): Promise<void> {
  let seen = "";
  return new Promise((resolve, reject) => {
    const look = (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-8_000);
      if (seen.includes(line)) resolve();
    };
    child.stdout?.on("data", look);
    child.stderr?.on("data", look);
    child.once("exit", (code) => reject(new Error(`${what} exited (${code}) before it started:\n${seen}`)));
  });
}

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, "SIGTERM");
  } catch {
    // already gone
  }
}

export async function run(): Promise<void> {
  const { latency: N_LATENCY, throughput: N_THROUGHPUT } = callCounts({ latency: 1000, throughput: 3000 });
  const stage = await openStage("stdio");
  const { db } = stage;
  const clients: Client[] = [];
  try {
    // A team that may run stdio servers, the command on the deployment's allow list, and the echo server installed.
    const owner = await makeUser(db);
    const team = await makeTeam(db, owner, { stdioAllowed: false });
    await setTeamStdioAllowed(db, { teamId: team.id, allowed: true });
    await allowCommands(db, [{ kind: "executable", name: process.execPath }]);
    const template = await seedTemplate(db, {
      teamId: team.id,
      slug: "echo",
      name: "Echo",
      transport: "stdio",
      command: process.execPath,
      args: [ECHO],
    });
    const instanceId = (await seedInstallation(db, { template })).instances[0]!.id;
    const token = (await makeAccessToken(db, { userId: owner.id, teamId: team.id, name: "bench" })).token;

    // The worker, as `node dist/main.js` starts it, with its internal bridge; the route reaches it there.
    const bridgeSecret = randomBytes(32).toString("hex");
    const bridgePort = await freePort();
    const sandboxDir = mkdtempSync(path.join(os.tmpdir(), "sb-bench-sandboxes-"));
    stage.onClose(() => removeSandboxDir(sandboxDir));
    const workerDir = path.join(root, "apps/worker");
    const workerMain = bundled(path.join(workerDir, "src/main.ts"), path.join(workerDir, "dist/main.js"), [
      path.join(workerDir, "src/sandbox/seccomp-compile.py"),
    ]);
    // BENCH_WORKER_PROFILE=<dir> and BENCH_ROUTE_PROFILE=<dir>: CPU profiles of the worker and the route process.
    const worker = spawn(process.execPath, [...profiled("BENCH_WORKER_PROFILE"), ...workerMain], {
      cwd: workerDir,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...stage.env,
        LOG_LEVEL: "info",
        BRIDGE_SECRET: bridgeSecret,
        BRIDGE_PORT: String(bridgePort),
        BRIDGE_HOST: "127.0.0.1",
        STDIO_SANDBOX_DIR: sandboxDir,
        // The echo server's script is read from here inside its sandbox (node and node_modules are readable anyway).
        STDIO_SANDBOX_READONLY_PATHS: import.meta.dirname,
        WORKER_HEALTH_PORT: "off",
      },
    });
    // Stopped and waited for, so that its sandboxes are gone before their directory is removed.
    const workerExited = new Promise((resolve) => worker.once("exit", resolve));
    stage.onClose(async () => {
      killGroup(worker);
      await Promise.race([workerExited, sleep(20_000)]);
    });
    await waitForLine(worker, "worker started", "the worker");
    const route = await stage.startRoute({ BRIDGE_SECRET: bridgeSecret, BRIDGE_URL: `http://127.0.0.1:${bridgePort}` });
    for (let waited = 0; ; waited += 500) {
      const { status } = await db.instance.findUniqueOrThrow({ where: { id: instanceId } });
      if (status === "online") break;
      if (waited > 60_000) throw new Error(`the stdio echo server did not come online through the worker (${status})`);
      await sleep(500);
    }

    // mcp-proxy's CLI in front of the same server (unsandboxed), Streamable HTTP only.
    const peerPort = await freePort();
    const peer = spawn(
      process.execPath,
      [
        path.join(root, "node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs"),
        "--port",
        String(peerPort),
        "--host",
        "127.0.0.1",
        "--server",
        "stream",
        "--",
        process.execPath,
        ECHO,
      ],
      { detached: true, stdio: ["ignore", "ignore", "inherit"] },
    );
    stage.onClose(() => killGroup(peer));
    const peerUrl = `http://127.0.0.1:${peerPort}/mcp`;
    await waitForHttp(peerUrl, peer);

    console.log(
      `\n== stdio benchmark (tools/call of a stdio echo server; ${N_LATENCY} sequential calls, ${N_THROUGHPUT} calls with 32 clients)`,
    );
    const theirs1 = await connect(peerUrl);
    const ours1 = await connect(route.url, token);
    clients.push(theirs1, ours1);
    const [t1, o1] = await alternating(
      N_LATENCY,
      () => echo(theirs1, 0, "echo"),
      () => echo(ours1, 0, "echo-echo"),
    );
    const theirs32 = await Promise.all(Array.from({ length: 32 }, () => connect(peerUrl)));
    const ours32 = await Promise.all(Array.from({ length: 32 }, () => connect(route.url, token)));
    clients.push(...theirs32, ...ours32);
    const cpu = new CpuMeter({ peer: peer.pid!, route: route.pid, worker: worker.pid! });
    const t32 = await cpu.measure(() => concurrent(theirs32, N_THROUGHPUT, (c, i) => echo(c, i, "echo")));
    const o32 = await cpu.measure(() => concurrent(ours32, N_THROUGHPUT, (c, i) => echo(c, i, "echo-echo")));
    console.log(
      table([
        ["", "mcp-proxy", "via /api/mcp + worker", "ours/theirs", "added"],
        compareRow("p50, 1 client", t1.stats.p50, o1.stats.p50, ms),
        compareRow("p99, 1 client", t1.stats.p99, o1.stats.p99, ms),
        compareRow("p50, 32 clients", t32.stats.p50, o32.stats.p50, ms),
        compareRow("calls/s, 32 clients", t32.perSecond, o32.perSecond, perSecond, false),
      ]),
    );
    const per = (v: number) => ms(v / N_THROUGHPUT);
    console.log(
      `CPU per call with 32 clients: mcp-proxy ${per(t32.cpu.peer!)}; ours: route ${per(o32.cpu.route!)} + worker ${per(o32.cpu.worker!)} (the stdio servers' own CPU not counted on either side)`,
    );
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await stage.close();
  }
}
