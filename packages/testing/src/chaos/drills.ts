import { setTimeout as sleep } from "node:timers/promises";
import { createInstanceQueueProducer } from "@switchboard/runtime/jobs/producer";
import { describeProcesses, descendants, orphanedProcesses, processTable, type ProcessInfo } from "../processes";
import { waitUntil } from "../wait";
import { catalogueSnapshot, lostEntries } from "./catalogue";
import type { CallRecord, Load } from "./load";
import type { ChaosStack } from "./stack";

/**
 * The fault drills of `npm run chaos` (scripts/chaos), each also run at small scale by a CI test. A drill breaks
 * one part of a running stack under steady load, lets the stack recover with no manual step (a killed process is
 * started again, as a process supervisor would), and reports what the clients saw, how long recovery took, what
 * the catalogue lost and which processes were left behind.
 */
export interface DrillResult {
  name: string;
  attempted: number;
  succeeded: number;
  /** A JSON-RPC error or a tool error with a readable message. */
  failed: number;
  /** The connection to a killed gateway process was cut under the call. */
  cut: number;
  /** No answer before the deadline: must be 0. */
  hung: number;
  /** From the fault to the first call of an unbroken run of successes (and every instance online); null: never. */
  recoverMs: number | null;
  /** A drill of many independent cycles has nothing to recover from (printed as "-"). */
  noRecovery?: boolean;
  /** Catalogue entries present before the fault and missing after: must be 0. */
  catalogueLost: string[];
  /** Stdio servers and sandbox processes left without a live worker (and a killed process's children): must be 0. */
  orphans: ProcessInfo[];
  /** Distinct failure messages (a few), to judge whether they read well. */
  messages: string[];
  notes: string[];
}

export interface DrillContext {
  stack: ChaosStack;
  load: Load;
  log?: (line: string) => void;
  /** How long a drill waits for recovery before it reports "not recovered" (90 s). */
  recoverTimeoutMs?: number;
  /** How long the successes after a fault must last to count as recovered (5 s). */
  holdMs?: number;
}

/** What a fault hands back: processes it expects gone (a killed process's children), notes for the report. */
interface FaultOutcome {
  expectGone?: ProcessInfo[];
  notes?: string[];
  /** The drill's own measure of recovery (a fault repeated: the worst of its repetitions). */
  recoverMs?: number;
}

export type Drill = (ctx: DrillContext) => Promise<DrillResult>;

/** Calls of the drill: those that ended after the fault began (in flight then, or started later). */
function callsOf(load: Load, from: number, to: number): CallRecord[] {
  return load.records.filter((r) => r.endedAt >= from && r.startedAt < to);
}

/**
 * When calls recovered: the start of the first success after the last failure, once every target has had
 * `streak` successes since and no call older than that is still open. Undefined while not recovered.
 */
function recoveredAt(load: Load, from: number, targets: readonly string[], streak = 3, holdMs = 0): number | undefined {
  const calls = callsOf(load, from, Number.POSITIVE_INFINITY);
  const lastBad = Math.max(from, ...calls.filter((c) => c.outcome !== "ok").map((c) => c.startedAt + 1));
  const after = calls.filter((c) => c.startedAt >= lastBad);
  if (!targets.every((t) => after.filter((c) => c.target === t && c.outcome === "ok").length >= streak))
    return undefined;
  const first = Math.min(...after.map((c) => c.startedAt));
  if (load.oldestInFlight() !== undefined && load.oldestInFlight()! < first) return undefined;
  // The successes must last: a stack that relapses (a part failing again after its first good calls) is not back.
  if (Date.now() - first < holdMs) return undefined;
  return calls.some((c) => c.outcome !== "ok") ? first : from;
}

async function runDrill(
  name: string,
  ctx: DrillContext,
  fault: () => Promise<FaultOutcome | void>,
  options: { expectOnline?: boolean } = {},
): Promise<DrillResult> {
  const { stack, load } = ctx;
  const targets = load.targetNames;
  ctx.log?.(`drill: ${name}`);
  // A clean start: the previous drill's effects are over before this one begins.
  const ready = Date.now();
  const healthy = await waitUntil(
    () => recoveredAt(load, ready, targets) !== undefined,
    `${name}: calls succeeding before the fault`,
    60_000,
    100,
  ).then(
    () => undefined,
    () => load.records.slice(-4).map((r) => `${r.target} ${r.outcome} ${r.message ?? ""}`),
  );
  if (healthy) {
    // Not run: what broke before (an earlier drill that never recovered) would be counted against this one.
    ctx.log?.(`  ${name}: not run, calls were failing before the fault`);
    return {
      name,
      ...{ attempted: 0, succeeded: 0, failed: 0, cut: 0, hung: 0, recoverMs: null, catalogueLost: [], orphans: [] },
      messages: healthy,
      notes: ["not run: calls were failing before the fault (the stack had not recovered from the drill before)"],
    };
  }
  const before = await catalogueSnapshot(stack.db!);
  const faultAt = Date.now();
  const outcome = (await fault()) ?? {};
  const deadline = Date.now() + (ctx.recoverTimeoutMs ?? 90_000);
  let recovered: number | undefined;
  for (;;) {
    recovered = recoveredAt(load, faultAt, targets, 3, ctx.holdMs ?? 5_000);
    if (recovered !== undefined && options.expectOnline) {
      recovered = (await allOnline(stack).catch(() => false)) ? recovered : undefined;
    }
    if (recovered !== undefined || Date.now() > deadline) break;
    await sleep(200);
  }
  const endAt = Date.now();
  const calls = callsOf(load, faultAt, endAt);
  const after = await catalogueSnapshot(stack.db!);
  const orphans = await leftBehind(stack, outcome.expectGone ?? []);
  const result: DrillResult = {
    name,
    attempted: calls.length,
    succeeded: calls.filter((c) => c.outcome === "ok").length,
    failed: calls.filter((c) => c.outcome === "failed").length,
    cut: calls.filter((c) => c.outcome === "cut").length,
    hung: calls.filter((c) => c.outcome === "hung").length,
    recoverMs: recovered === undefined ? null : (outcome.recoverMs ?? recovered - faultAt),
    catalogueLost: lostEntries(before, after),
    orphans,
    messages: [...new Set(calls.filter((c) => c.message).map((c) => `${c.outcome}: ${c.message}`))].slice(0, 6),
    notes: outcome.notes ?? [],
  };
  ctx.log?.(`  ${summary(result)}`);
  return result;
}

async function allOnline(stack: ChaosStack): Promise<boolean> {
  const ids = Object.values(stack.instances).filter(Boolean) as string[];
  const rows = await stack.db!.instance.findMany({ where: { id: { in: ids } }, select: { status: true } });
  return rows.length === ids.length && rows.every((r) => r.status === "online");
}

/**
 * Processes left behind: sandboxes and servers no live worker owns, and what a killed process had started that is
 * still running. Sandboxes die with their parent asynchronously (the kernel's parent-death signal), so they get a
 * few seconds before they count.
 */
async function leftBehind(stack: ChaosStack, expectGone: ProcessInfo[]): Promise<ProcessInfo[]> {
  const find = () => {
    const table = processTable();
    const live = stack.worker?.alive() ? [stack.worker.pid] : [];
    const found = new Map(orphanedProcesses(stack.sandboxDir, live, table).map((p) => [p.pid, p]));
    for (const p of expectGone) {
      const now = table.get(p.pid);
      // Same pid and same command line: the very process, not a new one that got its number.
      if (now && now.argv.join(" ") === p.argv.join(" ")) found.set(p.pid, now);
    }
    return [...found.values()];
  };
  const deadline = Date.now() + 5_000;
  let left = find();
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(100);
    left = find();
  }
  return left;
}

export function summary(r: DrillResult): string {
  const recover = r.recoverMs === null ? "NOT RECOVERED" : `${(r.recoverMs / 1000).toFixed(1)} s`;
  return (
    `${r.name}: ${r.attempted} calls, ${r.succeeded} ok, ${r.failed} failed clearly, ${r.cut} cut, ${r.hung} hung; ` +
    `recovered in ${recover}; ${r.catalogueLost.length} catalogue entries lost; ${r.orphans.length} orphaned processes` +
    (r.orphans.length ? `\n${describeProcesses(r.orphans)}` : "")
  );
}

/** Whether a drill passed: nothing hung, nothing lost, nothing orphaned, and it recovered. */
export function passed(r: DrillResult): boolean {
  return r.hung === 0 && r.catalogueLost.length === 0 && r.orphans.length === 0 && r.recoverMs !== null;
}

/** PostgreSQL stopped as a crash looks to its clients (every connection cut) and started again. */
export const postgresRestart: Drill = (ctx) =>
  runDrill("PostgreSQL restart", ctx, async () => {
    await ctx.stack.pg!.restart("immediate");
  });

/** Redis killed and started again empty (no persistence): sessions, queues, leases and schedules gone. */
export const redisRestart: Drill = (ctx) =>
  runDrill(
    "Redis restart (empty)",
    ctx,
    async () => {
      await ctx.stack.redis!.restart();
    },
    { expectOnline: true },
  );

/** Statuses an instance passes through while a reconnect job runs. */
const MID_JOB = new Set(["connecting", "discovering_tools", "syncing_tools"]);

/** The worker SIGKILLed while reconnect jobs run, then started again. */
export const workerKillDuringJobs: Drill = (ctx) =>
  runDrill(
    "worker SIGKILL during jobs",
    ctx,
    async () => {
      const { stack } = ctx;
      const producer = createInstanceQueueProducer({ redisUrl: stack.redis!.url, prefix: stack.prefix });
      try {
        const ids = Object.values(stack.instances).filter(Boolean) as string[];
        for (const instanceId of ids) await producer.enqueueForceReconnect({ instanceId, requestedBy: null });
        await waitUntil(
          async () =>
            (await stack.db!.instance.findMany({ where: { id: { in: ids } }, select: { status: true } })).some((i) =>
              MID_JOB.has(i.status),
            ),
          "a reconnect job mid-way",
          20_000,
          10,
        );
      } finally {
        await producer.close();
      }
      const expectGone = descendants(stack.worker!.pid);
      await stack.killWorker();
      await stack.startWorker();
      return { expectGone, notes: [`killed with ${expectGone.length} processes under it`] };
    },
    { expectOnline: true },
  );

/** The worker SIGKILLed the moment a stdio server's sandbox appears (bwrap started, server not up yet). */
export const workerKillDuringSandboxSetup: Drill = (ctx) =>
  runDrill(
    "worker SIGKILL during sandbox set-up",
    ctx,
    async () => {
      const { stack } = ctx;
      const stdio = stack.instances.stdio;
      if (!stdio) throw new Error("this drill needs the stack's stdio instance");
      // bwrap reads its arguments from a file (`--args`), so its command line names no host path: a sandbox of
      // this stack's is a bwrap under its worker.
      const sandboxes = (table = processTable()) =>
        descendants(stack.worker!.pid, table).filter((p) => p.argv[0]?.endsWith("bwrap"));
      const seen = new Set(sandboxes().map((p) => p.pid));
      const producer = createInstanceQueueProducer({ redisUrl: stack.redis!.url, prefix: stack.prefix });
      let expectGone: ProcessInfo[] = [];
      try {
        await producer.enqueueRestart({ instanceId: stdio, requestedBy: null });
        await waitUntil(
          () => {
            const table = processTable();
            if (!sandboxes(table).some((p) => !seen.has(p.pid))) return false;
            expectGone = descendants(stack.worker!.pid, table);
            stack.worker!.child.kill("SIGKILL");
            return true;
          },
          "a new sandbox being set up",
          20_000,
          5,
        );
      } finally {
        await producer.close();
      }
      await stack.killWorker();
      await stack.startWorker();
      return { expectGone, notes: [`killed with ${expectGone.length} processes under it`] };
    },
    { expectOnline: true },
  );

/** Gateway process 0 SIGKILLed with live sessions; clients continue on the other. It is started again afterwards. */
export const gatewayKill: Drill = async (ctx) => {
  const result = await runDrill("gateway SIGKILL", ctx, async () => {
    const gateway = ctx.stack.gateways[0];
    const expectGone = gateway ? descendants(gateway.pid) : [];
    await ctx.stack.killGateway(0);
    return { expectGone };
  });
  await ctx.stack.startGateway(0);
  return result;
};

/** The HTTP upstream stopped and started again on its port `times` times, each after `downMs`, under load. */
export function upstreamFlap(times = 20, downMs = 1_000): Drill {
  return (ctx) => {
    const recoveries: number[] = [];
    return runDrill(`upstream flapping x${times}`, ctx, async () => {
      const { stack, load } = ctx;
      for (let i = 0; i < times; i++) {
        await stack.upstream!.stop();
        await sleep(downMs);
        const back = Date.now();
        await stack.upstream!.restart();
        let at: number | undefined;
        await waitUntil(
          () => (at = recoveredAt(load, back, load.targetNames, 1)) !== undefined,
          `calls succeeding after flap ${i + 1}`,
          60_000,
          50,
        );
        recoveries.push(at! - back);
      }
      const worst = Math.max(...recoveries);
      const mean = recoveries.reduce((a, b) => a + b, 0) / recoveries.length;
      return {
        recoverMs: worst,
        notes: [
          `recovery counted from each restart of the upstream: worst ${(worst / 1000).toFixed(1)} s, mean ${(mean / 1000).toFixed(1)} s over ${times}`,
        ],
      };
    });
  };
}
