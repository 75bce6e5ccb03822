/**
 * The stdio start/stop drill of `npm run chaos` (and, with a small N, of test/stdio-cycles.test.ts): stdio servers
 * started and stopped through the worker's supervisor in its sandbox, over and over, some of them killed while
 * their sandbox is being set up (bwrap, or pasta for outbound ones); and sandbox hosts (the worker's stdio side as
 * a process of its own) SIGKILLed during their start-up probe (the outbound one, through pasta) or while their
 * server's sandbox is set up. Afterwards a real process listing must find nothing of them.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioSupervisor } from "@switchboard/core/stdio";
import type { DrillResult } from "@switchboard/testing/chaos/drills";
import {
  descendants,
  describeProcesses,
  orphanedProcesses,
  processTable,
  type ProcessInfo,
} from "@switchboard/testing/processes";
import { waitUntil } from "@switchboard/testing/wait";
import { CYCLE_SERVER, startCycleSandbox } from "./stdio-fixtures";

export interface StdioCyclesOptions {
  cycles: number;
  /** Every n-th cycle's server is SIGKILLed (whole group) right after its spawn, inside set-up (5). */
  killEvery?: number;
  /** Every n-th cycle runs with outbound network (pasta in front of bwrap), when the host allows it (4). */
  outboundEvery?: number;
  /** Sandbox hosts SIGKILLed during start-up or set-up (cycles / 50, at least 2). */
  hostKills?: number;
  /** Cycles run side by side (4). */
  parallel?: number;
  /** A cycle past this is hung (15 s). */
  deadlineMs?: number;
  /** pasta to use instead of the host's (a test's stand-in for a host where pasta fails). */
  pasta?: string;
  log?: (line: string) => void;
}

const HOST = path.join(import.meta.dirname, "sandbox-host.ts");
const WORKER_DIR = path.resolve(import.meta.dirname, "../..");

type CycleOutcome = "ok" | "failed" | "hung";

function deadline<T>(promise: Promise<T>, ms: number): Promise<T | "hung"> {
  let timer: NodeJS.Timeout;
  return Promise.race([promise, new Promise<"hung">((r) => (timer = setTimeout(() => r("hung"), ms)))]).finally(() =>
    clearTimeout(timer),
  );
}

export async function stdioCycles(options: StdioCyclesOptions): Promise<DrillResult> {
  const killEvery = options.killEvery ?? 5;
  const outboundEvery = options.outboundEvery ?? 4;
  const hostKills = options.hostKills ?? Math.max(2, Math.round(options.cycles / 50));
  const parallel = options.parallel ?? 4;
  const deadlineMs = options.deadlineMs ?? 15_000;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "sb-chaos-cycles-"));
  const started = Date.now();
  const outcomes: CycleOutcome[] = [];
  const messages = new Set<string>();
  const notes: string[] = [];
  let orphans: ProcessInfo[] = [];
  options.log?.(`drill: ${options.cycles} stdio start/stop cycles, ${hostKills} sandbox hosts killed`);
  try {
    const sandbox = await startCycleSandbox(dataDir, options.pasta);
    if (!sandbox.status.available) throw new Error(`the sandbox cannot start here: ${sandbox.status.reason}`);
    const outbound = sandbox.status.outbound;
    if (!outbound) notes.push("outbound sandboxes (pasta) are not available on this host: none were cycled");
    const supervisor = new StdioSupervisor({
      resolveLaunch: async (id) =>
        sandbox.wrap(id, CYCLE_SERVER, { outbound: outbound && Number(id.split("-")[1]) % outboundEvery === 0 }),
      killGraceMs: 1_000,
      idleStopMs: 0,
    });

    const cycle = async (i: number): Promise<CycleOutcome> => {
      const id = `cycle-${i}`;
      try {
        if (i % killEvery === 1) {
          // Killed inside set-up: the group goes down while bwrap (or pasta) is still building the sandbox.
          await supervisor.start(id);
          const pid = supervisor.state(id).pid;
          if (pid) process.kill(-pid, "SIGKILL");
          await supervisor.remove(id);
          return "ok";
        }
        const transport = await supervisor.connect(id);
        const client = new Client({ name: "cycles", version: "1.0.0" });
        await client.connect(transport);
        const tools = await client.listTools();
        await client.close();
        await supervisor.remove(id);
        if (tools.tools.length !== 2) throw new Error(`listed ${tools.tools.length} tools instead of 2`);
        return "ok";
      } catch (error) {
        messages.add(error instanceof Error ? error.message.slice(0, 200) : String(error));
        await supervisor.remove(id).catch(() => undefined);
        return "failed";
      } finally {
        sandbox.removeInstance(id);
      }
    };

    let next = 0;
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (next < options.cycles) {
          const i = next++;
          const outcome = await deadline(cycle(i), deadlineMs);
          outcomes.push(outcome);
          if (outcomes.length % 250 === 0) options.log?.(`  ${outcomes.length} cycles done`);
        }
      }),
    );
    await supervisor.closeAll();

    // The worker's stdio side killed at its worst moments: during the outbound probe, during a sandbox's set-up.
    const moments = { probe: 0, setup: 0 };
    for (let k = 0; k < hostKills; k++) {
      const killed = await killHost(dataDir, k % 2 === 0 ? "probe" : "setup", deadlineMs, options.pasta);
      if (killed === "failed" || killed === "hung") {
        outcomes.push(killed);
        messages.add(`a sandbox host was not killed at the planned moment (${killed})`);
      } else {
        outcomes.push("ok");
        moments[killed]++;
      }
    }
    // The supervisor starts the worker again: nothing of the killed ones may be left once it runs.
    orphans = await restartedHost(dataDir, deadlineMs, options.pasta);
    notes.push(
      `${options.cycles} cycles (every ${killEvery}th killed in set-up${outbound ? `, every ${outboundEvery}th with pasta` : ""}); ` +
        `sandbox hosts SIGKILLed: ${moments.probe} during the outbound probe (pasta${outbound ? "" : ", failing here"}), ${moments.setup} during a sandbox's set-up`,
    );
  } finally {
    // Whatever is left now has no live owner: the supervisor stopped everything and every host is dead.
    const left = await settledOrphans(dataDir, []);
    orphans = [...orphans, ...left.filter((p) => !orphans.some((o) => o.pid === p.pid))];
    if (orphans.length) options.log?.(`  orphans:\n${describeProcesses(orphans)}`);
    // Do not leave them running after the report: the drill is over.
    for (const p of orphans) {
      try {
        process.kill(p.pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
  const result: DrillResult = {
    name: `stdio start/stop x${options.cycles}`,
    attempted: outcomes.length,
    succeeded: outcomes.filter((o) => o === "ok").length,
    failed: outcomes.filter((o) => o === "failed").length,
    cut: 0,
    hung: outcomes.filter((o) => o === "hung").length,
    recoverMs: null,
    catalogueLost: [],
    orphans,
    messages: [...messages].slice(0, 6),
    notes: [...notes, `took ${((Date.now() - started) / 1000).toFixed(0)} s`],
  };
  // Nothing to recover from: every cycle starts fresh. Counted as recovered when every cycle ended.
  result.recoverMs = result.hung === 0 ? 0 : null;
  result.noRecovery = true;
  options.log?.(
    `  ${result.attempted} cycles, ${result.succeeded} ok, ${result.failed} failed, ${result.hung} hung, ${orphans.length} orphaned processes`,
  );
  return result;
}

/** Processes of the drill's sandboxes no live owner has, after a few seconds to die with their parent. */
async function settledOrphans(dataDir: string, owners: number[]): Promise<ProcessInfo[]> {
  const deadlineAt = Date.now() + 5_000;
  let orphans = orphanedProcesses(dataDir, owners);
  while (orphans.length > 0 && Date.now() < deadlineAt) {
    await new Promise((r) => setTimeout(r, 100));
    orphans = orphanedProcesses(dataDir, owners);
  }
  return orphans;
}

function startHost(dataDir: string, pasta?: string) {
  const host = spawn(process.execPath, ["--import", "tsx", HOST, dataDir, ...(pasta ? [pasta] : [])], {
    cwd: WORKER_DIR,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  host.stdout.on("data", (d: Buffer) => void (out += d.toString()));
  host.stderr.on("data", (d: Buffer) => void (out += d.toString()));
  const exited = new Promise<void>((resolve) => host.once("exit", () => resolve()));
  return { host, exited, output: () => out };
}

/**
 * A sandbox host started after the killed ones (as a process supervisor starts the worker again), running its
 * server: answers what of the earlier hosts is still running beside it. Then it is stopped (SIGTERM).
 */
async function restartedHost(dataDir: string, deadlineMs: number, pasta?: string): Promise<ProcessInfo[]> {
  const { host, exited, output } = startHost(dataDir, pasta);
  try {
    await waitUntil(
      () => {
        if (host.exitCode !== null) throw new Error(`the sandbox host exited early: ${output().slice(-500)}`);
        return output().includes("running");
      },
      "the restarted sandbox host's server",
      deadlineMs,
      20,
    );
    return await settledOrphans(dataDir, [host.pid!]);
  } finally {
    host.kill("SIGTERM");
    await exited;
  }
}

/**
 * Starts a sandbox host and SIGKILLs it when its outbound probe's pasta appears ("probe"; a probe too quick to
 * catch falls back to the next moment) or when its server's sandbox appears after start-up ("setup"). Answers
 * the moment it was killed at (its leftovers are counted at the end).
 */
async function killHost(
  dataDir: string,
  when: "probe" | "setup",
  deadlineMs: number,
  pasta?: string,
): Promise<"probe" | "setup" | "failed" | "hung"> {
  const { host, exited, output } = startHost(dataDir, pasta);
  const isPasta = (p: ProcessInfo) => p.argv.some((a) => path.basename(a).startsWith("pasta"));
  const isBwrap = (p: ProcessInfo) => path.basename(p.argv[0] ?? "") === "bwrap";
  let moment: "probe" | "setup" | undefined;
  try {
    await waitUntil(
      () => {
        if (host.exitCode !== null) throw new Error(`the sandbox host exited early: ${output().slice(-500)}`);
        const out = output();
        const ready = out.includes("ready");
        const under = descendants(host.pid!, processTable());
        if (when === "probe" && !ready && under.some(isPasta)) moment = "probe";
        else if (ready && !out.includes("running") && under.some(isBwrap)) moment = "setup";
        else if (out.includes("running")) moment = "setup"; // set-up was quicker than the listing: right after it
        if (moment) host.kill("SIGKILL");
        return moment !== undefined;
      },
      `the sandbox host's ${when === "probe" ? "outbound probe" : "server's sandbox set-up"}`,
      deadlineMs,
      2,
    );
    await exited;
    return moment!;
  } catch (error) {
    host.kill("SIGKILL");
    await exited;
    return /timed out/.test(String(error)) ? "hung" : "failed";
  }
}
