/**
 * The bench's MCP clients and how it drives them: SDK 1.x clients (2025-11-25 sessions) and SDK v2 clients pinned
 * to 2026-07-28, calls sequential, alternating between two targets, or from many clients at once, and the CPU
 * each process spends meanwhile (read from /proc).
 */
import { readFileSync } from "node:fs";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { latencyStats, type LatencyStats } from "./stats";

export const REV = "2026-07-28";

/** A dependent signal per request, as core's upstream transport does: the SDK hands every request one
 * long-lived signal, on which undici would otherwise pile up listeners in this (client) process. */
const perRequestSignal: typeof fetch = (input, init) =>
  fetch(input, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init);

/** An SDK v2 client pinned to 2026-07-28: every request stateless, the route builds the member's proxy per request. */
export async function connect2026(url: string, token: string): Promise<ClientV2> {
  const client = new ClientV2({ name: "bench-2026", version: "1.0.0" }, { versionNegotiation: { mode: { pin: REV } } });
  await client.connect(
    new TransportV2(new URL(url), {
      fetch: perRequestSignal,
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  if (client.getNegotiatedProtocolVersion() !== REV) throw new Error(`the route did not speak ${REV}`);
  return client;
}

export async function connect(url: string, token?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: perRequestSignal,
    ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
  });
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

export async function sequential<C>(
  client: C,
  n: number,
  op: (c: C, i: number) => Promise<unknown>,
): Promise<{ stats: LatencyStats; perSecond: number }> {
  for (let i = 0; i < Math.min(200, n / 10); i++) await op(client, i); // warm-up
  const samples: number[] = [];
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await op(client, i);
    samples.push(performance.now() - t);
  }
  return { stats: latencyStats(samples), perSecond: (n / (performance.now() - started)) * 1000 };
}

/**
 * One client each, direct and proxied calls taking turns (the order flips every round), so both see the same
 * machine: on a shared VM, two runs one after the other can differ more than the proxy adds.
 */
export async function alternating(
  n: number,
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
): Promise<[Measured, Measured]> {
  for (let i = 0; i < Math.min(200, n / 10); i++) await Promise.all([a(), b()]); // warm-up
  const samples: [number[], number[]] = [[], []];
  const ops = [a, b];
  for (let i = 0; i < n; i++) {
    for (const k of i % 2 === 0 ? [0, 1] : [1, 0]) {
      const t = performance.now();
      await ops[k]!();
      samples[k]!.push(performance.now() - t);
    }
  }
  const measured = (s: number[]): Measured => ({
    stats: latencyStats(s),
    perSecond: (s.length / s.reduce((x, y) => x + y, 0)) * 1000,
  });
  return [measured(samples[0]), measured(samples[1])];
}

export type Measured = { stats: LatencyStats; perSecond: number };

export async function concurrent<C>(
  clients: C[],
  total: number,
  op: (c: C, i: number) => Promise<unknown>,
): Promise<{ stats: LatencyStats; perSecond: number }> {
  await Promise.all(clients.map((c, i) => op(c, i)));
  let next = 0;
  const samples: number[] = [];
  const started = performance.now();
  await Promise.all(
    clients.map(async (c) => {
      while (next < total) {
        const i = next++;
        const t = performance.now();
        await op(c, i);
        samples.push(performance.now() - t);
      }
    }),
  );
  return { stats: latencyStats(samples), perSecond: (total / (performance.now() - started)) * 1000 };
}

/** CPU time (user + system, ms) that each of some processes spends while a piece of the bench runs. */
export class CpuMeter {
  private readonly tick = 1000 / 100; // USER_HZ is 100 on Linux
  constructor(private readonly pids: Record<string, number>) {}

  private read(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [role, pid] of Object.entries(this.pids)) {
      // Fields 14 and 15 of /proc/<pid>/stat (after the parenthesised command name): utime and stime in ticks.
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      out[role] = (Number(fields[11]) + Number(fields[12])) * this.tick;
    }
    return out;
  }

  async measure<T extends object>(run: () => Promise<T>): Promise<T & { cpu: Record<string, number> }> {
    const before = this.read();
    const result = await run();
    const after = this.read();
    return { ...result, cpu: Object.fromEntries(Object.keys(after).map((k) => [k, after[k]! - before[k]!])) };
  }
}

export const echo = (c: Client | ClientV2, i: number, name: string) =>
  c.callTool({ name, arguments: { text: `hello ${i}` } });
