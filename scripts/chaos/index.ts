/**
 * `npm run chaos`: the fault drills against a real stack (a private PostgreSQL and Redis, a worker, two web
 * processes behind a balancer, an HTTP upstream and a sandboxed stdio server) under steady load from real SDK
 * clients, then start/stop cycles of stdio servers with kills during set-up. Prints one row per drill and exits
 * non-zero if a call hung, a catalogue entry was lost, a process was orphaned or a drill did not recover.
 *
 * Knobs: CHAOS_GATEWAY=route|server (server: `apps/gateway/server.ts` with the console's production build, built
 * first if missing; route: the MCP route alone per process), CHAOS_CLIENTS (8), CHAOS_FLAPS (20),
 * CHAOS_STDIO_CYCLES (1000), CHAOS_DEADLINE_MS (20000), CHAOS_ONLY (comma-separated drill keys).
 * Never touches the shared PostgreSQL or Redis.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import {
  gatewayKill,
  passed,
  postgresRestart,
  redisRestart,
  upstreamFlap,
  workerKillDuringJobs,
  workerKillDuringSandboxSetup,
  type Drill,
  type DrillResult,
} from "@switchboard/testing/chaos/drills";
import { Load } from "@switchboard/testing/chaos/load";
import { ChaosStack } from "@switchboard/testing/chaos/stack";
import { describeProcesses } from "@switchboard/testing/processes";
import { table } from "../bench/stats";

const root = path.resolve(import.meta.dirname, "../..");
const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const gatewayMode = process.env.CHAOS_GATEWAY === "route" ? "route" : "server";
const only = process.env.CHAOS_ONLY?.split(",").map((s) => s.trim());
const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

// The worker's drills last: a stack that does not recover from one is reported, and the others are measured first.
const drills: Array<[string, Drill]> = [
  ["postgres", postgresRestart],
  ["redis", redisRestart],
  ["gateway", gatewayKill],
  ["flap", upstreamFlap(num("CHAOS_FLAPS", 20))],
  ["worker-setup", workerKillDuringSandboxSetup],
  ["worker-jobs", workerKillDuringJobs],
];

async function buildConsoleIfMissing() {
  if (existsSync(path.join(root, "apps/web/.next/BUILD_ID"))) return;
  log("building the console (production build) for the gateway processes…");
  await new Promise<void>((resolve, reject) =>
    spawn("npm", ["run", "build", "-w", "@switchboard/web"], { cwd: root, stdio: "inherit" }).on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`build failed (${code})`)),
    ),
  );
}

function row(r: DrillResult): string[] {
  return [
    r.name,
    String(r.attempted),
    String(r.succeeded),
    String(r.failed),
    String(r.cut),
    String(r.hung),
    r.noRecovery && r.recoverMs !== null
      ? "-"
      : r.recoverMs === null
        ? "not recovered"
        : `${(r.recoverMs / 1000).toFixed(1)} s`,
    String(r.catalogueLost.length),
    String(r.orphans.length),
  ];
}

const results: DrillResult[] = [];
let stack: ChaosStack | undefined;
let load: Load | undefined;
let exitCode = 0;
const cleanUp = async () => {
  await load?.stop().catch(() => undefined);
  await stack?.stop().catch((e: unknown) => log(`clean-up: ${String(e)}`));
};
process.once("SIGINT", () => void cleanUp().then(() => process.exit(130)));

try {
  const selected = drills.filter(([key]) => !only || only.includes(key));
  if (selected.length > 0) {
    if (gatewayMode === "server") await buildConsoleIfMissing();
    log(`starting the stack (gateway processes: ${gatewayMode})…`);
    stack = await ChaosStack.start({ gateway: gatewayMode, log });
    load = new Load({
      url: stack.url,
      token: stack.token,
      targets: [
        { tool: "web-echo", arguments: { text: "chaos" } },
        { tool: "local-echo", arguments: { message: "chaos" } },
      ],
      clients: num("CHAOS_CLIENTS", 8),
      deadlineMs: num("CHAOS_DEADLINE_MS", 20_000),
      pauseMs: 20,
    });
    await load.start();
    log(`load: ${num("CHAOS_CLIENTS", 8)} clients calling web-echo (HTTP upstream) and local-echo (stdio, sandboxed)`);
    for (const [, drill] of selected) results.push(await drill({ stack, load, log }));
    await load.stop();
    load = undefined;
    await stack.stop();
    stack = undefined;
  }
  if (!only || only.includes("stdio-cycles")) {
    const { stdioCycles } = await import("../../apps/worker/test/support/stdio-cycles");
    results.push(await stdioCycles({ cycles: num("CHAOS_STDIO_CYCLES", 1000), log }));
  }
} catch (error) {
  log(`chaos run failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  exitCode = 1;
} finally {
  await cleanUp();
}

console.log(
  `\n== fault drills (${gatewayMode === "server" ? "gateway processes: server.ts with the console" : "gateway processes: the MCP route alone"})`,
);
console.log(
  table([
    ["drill", "calls", "ok", "failed clearly", "cut", "hung", "recovered in", "catalogue lost", "orphans"],
    ...results.map(row),
  ]),
);
for (const r of results) {
  for (const note of r.notes) console.log(`- ${r.name}: ${note}`);
  for (const message of r.messages) console.log(`  ${r.name} saw ${message}`);
  if (r.catalogueLost.length) console.log(`  ${r.name} lost: ${r.catalogueLost.slice(0, 10).join(", ")}`);
  if (r.orphans.length) console.log(`  ${r.name} orphans:\n${describeProcesses(r.orphans)}`);
}
const failedDrills = results.filter((r) => !passed(r));
if (failedDrills.length > 0) {
  console.log(`\nFAILED: ${failedDrills.map((r) => r.name).join(", ")}`);
  exitCode = 1;
}
process.exit(exitCode);
