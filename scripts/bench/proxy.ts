/**
 * Proxy benchmark: tools/call straight to a real Streamable HTTP upstream and through the hosted route
 * (`/api/mcp` on the production build, with auth, session, catalogue lookup, retry wrapper and request log),
 * in the same run on the same machine. Also tools/list for a member with 20 servers x 50 tools.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Client as ClientV2 } from "@modelcontextprotocol/client";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { makeAccessToken, makeTeam, makeUser } from "@switchboard/db/testing";
import { freePort } from "@switchboard/testing/net";
import { alternating, concurrent, connect, connect2026, CpuMeter, echo, REV, sequential } from "./clients";
import { RawSession } from "./sessions";
import { bundled, callCounts, openStage, root, startServerProcess, waitForHttp } from "./stage";
import { compareRow, ms, perSecond, ratio, table } from "./stats";

const N_LIST = Number(process.env.BENCH_LIST_CALLS ?? 300);

/** One stateless 2026-07-28 tools/list as a conforming client posts it; the answer read whole, not parsed. */
async function listAt2026(url: string, token: string): Promise<void> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": REV,
      "mcp-method": "tools/list",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": REV,
          "io.modelcontextprotocol/clientInfo": { name: "bench-raw", version: "1.0.0" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  const text = await res.text();
  if (!res.ok || !text.includes('"tools"'))
    throw new Error(`tools/list at ${REV} answered ${res.status}: ${text.slice(0, 200)}`);
}

export async function run(): Promise<void> {
  const webDir = path.join(root, "apps/web");
  const gatewayDir = path.join(root, "apps/gateway");
  if (!existsSync(path.join(webDir, ".next/BUILD_ID"))) {
    console.log("building the console (production build)…");
    await new Promise<void>((resolve, reject) =>
      spawn("npm", ["run", "build", "-w", "@switchboard/web"], { cwd: root, stdio: "inherit" }).on("exit", (code) =>
        code === 0 ? resolve() : reject(new Error(`build failed (${code})`)),
      ),
    );
  }

  const { latency: N_LATENCY, throughput: N_THROUGHPUT } = callCounts();
  const stage = await openStage("proxy");
  const { db, upstream } = stage;
  const port = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  let web: ChildProcess | undefined;
  const clients: Array<Client | ClientV2> = [];

  try {
    // One member with the echo server; another with 20 servers x 50 tools (catalogue rows only: lists never touch upstreams).
    const echoTeam = await stage.echoTeam();
    const echoToken = echoTeam.token;
    const heavy = await makeUser(db);
    const heavyTeam = await makeTeam(db, heavy);
    for (let s = 0; s < 20; s++) {
      const t = await seedTemplate(db, {
        teamId: heavyTeam.id,
        slug: `server-${s}`,
        name: `Server ${s}`,
        transport: "streamable_http",
        url: `http://127.0.0.1:9/s${s}`,
      });
      const inst = (await seedInstallation(db, { template: t })).instances[0]!;
      await db.instanceTool.createMany({
        data: Array.from({ length: 50 }, (_, k) => ({
          instanceId: inst.id,
          name: `tool_${k}`,
          description: `Tool ${k} of server ${s}: does a realistic amount of describing what it does and when to use it.`,
          inputSchema: {
            type: "object",
            properties: { query: { type: "string", description: "What to look up" }, limit: { type: "integer" } },
            required: ["query"],
          },
          tokenCount: 60,
          position: k,
        })),
      });
      await db.instance.update({ where: { id: inst.id }, data: { status: "online", toolCount: 50 } });
    }

    const heavyToken = (await makeAccessToken(db, { userId: heavy.id, teamId: heavyTeam.id, name: "bench" })).token;

    // BENCH_WEB_PROFILE=<dir> runs the server under `node --cpu-prof` to see where a proxied call's time goes.
    const profile = process.env.BENCH_WEB_PROFILE;
    // What `npm start` runs: the gateway's production bundle (Next for the console, the MCP route served directly).
    const server = bundled(path.join(gatewayDir, "server.ts"), path.join(gatewayDir, "dist/server.js"), [
      path.join(gatewayDir, "src/console/exit-with-parent.cjs"),
    ]);
    web = spawn(process.execPath, [...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : []), ...server], {
      cwd: gatewayDir,
      // Its own process group, so that everything it started goes down with it.
      detached: true,
      stdio: ["ignore", "ignore", "inherit"],
      env: {
        ...stage.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        APP_URL: appUrl,
        AUTH_RATE_LIMIT: "off",
        NEXT_TELEMETRY_DISABLED: "1",
      },
    });
    await waitForHttp(`${appUrl}/sign-in`, web);
    const proxyUrl = `${appUrl}/api/mcp`;

    console.log(
      `\n== proxy benchmark (tools/call of an echo tool; ${N_LATENCY} sequential calls, ${N_THROUGHPUT} calls with 32 clients)`,
    );
    const direct1 = await connect(upstream.url);
    const proxy1 = await connect(proxyUrl, echoToken);
    clients.push(direct1, proxy1);
    const [d1, p1] = await alternating(
      N_LATENCY,
      () => echo(direct1, 0, "echo"),
      () => echo(proxy1, 0, "echo-echo"),
    );

    const direct32 = await Promise.all(Array.from({ length: 32 }, () => connect(upstream.url)));
    const proxy32 = await Promise.all(Array.from({ length: 32 }, () => connect(proxyUrl, echoToken)));
    clients.push(...direct32, ...proxy32);
    const cpu = new CpuMeter({ clients: process.pid, upstream: upstream.pid, route: web.pid! });
    const d32 = await cpu.measure(() => concurrent(direct32, N_THROUGHPUT, (c, i) => echo(c, i, "echo")));
    const p32 = await cpu.measure(() => concurrent(proxy32, N_THROUGHPUT, (c, i) => echo(c, i, "echo-echo")));

    console.log(
      table([
        ["", "direct", "via /api/mcp", "proxy/direct", "added"],
        compareRow("p50, 1 client", d1.stats.p50, p1.stats.p50, ms),
        compareRow("p99, 1 client", d1.stats.p99, p1.stats.p99, ms),
        compareRow("calls/s, 1 client", d1.perSecond, p1.perSecond, perSecond, false),
        compareRow("p50, 32 clients", d32.stats.p50, p32.stats.p50, ms),
        compareRow("p99, 32 clients", d32.stats.p99, p32.stats.p99, ms),
        compareRow("calls/s, 32 clients", d32.perSecond, p32.perSecond, perSecond, false),
      ]),
    );
    const perCall = (used: Record<string, number>, role: string) => ms(used[role]! / N_THROUGHPUT);
    console.log(`\nCPU time per call with 32 clients (all processes share ${os.availableParallelism()} cores):`);
    console.log(
      table([
        ["", "clients (bench)", "upstream", "gateway", "total", "ceiling at 100% CPU"],
        ...(
          [
            ["direct", d32.cpu],
            ["via /api/mcp", p32.cpu],
          ] as const
        ).map(([label, used]) => {
          const total = used.clients! + used.upstream! + used.route!;
          return [
            label,
            perCall(used, "clients"),
            perCall(used, "upstream"),
            label === "direct" ? "-" : perCall(used, "route"),
            ms(total / N_THROUGHPUT),
            `${((os.availableParallelism() * 1000 * N_THROUGHPUT) / total).toFixed(0)} calls/s`,
          ];
        }),
      ]),
    );
    console.log(
      `targets: added p50 latency < 2 ms (measured ${ms(p1.stats.p50 - d1.stats.p50)}); >= 1000 proxied calls/s with 32 clients (measured ${p32.perSecond.toFixed(0)})`,
    );
    // What no proxy can beat here: the bench's clients and the upstream, at their CPU per proxied call, on every core.
    const floor = (p32.cpu.clients! + p32.cpu.upstream!) / N_THROUGHPUT;
    console.log(
      `the clients and the upstream alone use ${ms(floor)} of CPU per proxied call: ${((os.availableParallelism() * 1000) / floor).toFixed(0)} calls/s is the most any proxy could reach on these ${os.availableParallelism()} cores`,
    );

    // The floor: the same calls through a forwarder that does nothing but Node's HTTP both ways and a JSON parse of
    // each message (./forwarder-process.ts), measured in the same way; what the route costs beyond it is its own.
    const forwarder = await startServerProcess("forwarder-process.ts", [upstream.url]);
    try {
      const bare1 = await connect(forwarder.url);
      const [fd1, f1] = await alternating(
        N_LATENCY,
        () => echo(direct1, 0, "echo"),
        () => echo(bare1, 0, "echo"),
      );
      const bare32 = await Promise.all(Array.from({ length: 32 }, () => connect(forwarder.url)));
      const bareCpu = new CpuMeter({ clients: process.pid, upstream: upstream.pid, route: forwarder.pid });
      const f32 = await bareCpu.measure(() => concurrent(bare32, N_THROUGHPUT, (c, i) => echo(c, i, "echo")));
      await Promise.all([bare1, ...bare32].map((c) => c.close().catch(() => undefined)));
      console.log(
        `\n== the floor: a bare Node forwarder (HTTP in, JSON parsed, HTTP out; nothing else) beside the route`,
      );
      console.log(
        table([
          ["", "bare forwarder", "via /api/mcp", "route/forwarder"],
          [
            "added p50, 1 client",
            ms(f1.stats.p50 - fd1.stats.p50),
            ms(p1.stats.p50 - d1.stats.p50),
            ratio(p1.stats.p50 - d1.stats.p50, f1.stats.p50 - fd1.stats.p50),
          ],
          [
            "calls/s, 32 clients (of direct)",
            `${f32.perSecond.toFixed(0)} (${ratio(f32.perSecond, d32.perSecond)})`,
            `${p32.perSecond.toFixed(0)} (${ratio(p32.perSecond, d32.perSecond)})`,
            ratio(p32.perSecond, f32.perSecond),
          ],
          [
            "its CPU per call, 32 clients",
            perCall(f32.cpu, "route"),
            perCall(p32.cpu, "route"),
            ratio(p32.cpu.route!, f32.cpu.route!),
          ],
        ]),
      );
    } finally {
      await forwarder.close();
    }

    // The same calls from clients at 2026-07-28 (stateless: no session, the member's proxy built per request from
    // the shared catalogue cache and upstream pool) beside the 2025-11-25 sessions measured above.
    console.log(`\n== ${REV} (stateless) beside 2025-11-25 (sessions), both via /api/mcp to the same 2025 upstream`);
    const at2026x1 = await connect2026(proxyUrl, echoToken);
    clients.push(at2026x1);
    const [s1, m1] = await alternating(
      N_LATENCY,
      () => echo(proxy1, 0, "echo-echo"),
      () => echo(at2026x1, 0, "echo-echo"),
    );
    const at2026x32 = await Promise.all(Array.from({ length: 32 }, () => connect2026(proxyUrl, echoToken)));
    clients.push(...at2026x32);
    const m32 = await cpu.measure(() => concurrent(at2026x32, N_THROUGHPUT, (c, i) => echo(c, i, "echo-echo")));
    console.log(
      table([
        ["", "2025-11-25 session", REV, `${REV}/2025-11-25`],
        ["p50, 1 client", ms(s1.stats.p50), ms(m1.stats.p50), ratio(m1.stats.p50, s1.stats.p50)],
        ["p99, 1 client", ms(s1.stats.p99), ms(m1.stats.p99), ratio(m1.stats.p99, s1.stats.p99)],
        [
          "calls/s, 32 clients",
          p32.perSecond.toFixed(0),
          m32.perSecond.toFixed(0),
          ratio(m32.perSecond, p32.perSecond),
        ],
        [
          "gateway CPU per call, 32 clients",
          perCall(p32.cpu, "route"),
          perCall(m32.cpu, "route"),
          ratio(m32.cpu.route!, p32.cpu.route!),
        ],
      ]),
    );

    const heavyClient = await connect(proxyUrl, heavyToken);
    clients.push(heavyClient);
    const firstList = performance.now();
    const listed = await heavyClient.listTools();
    const cold = performance.now() - firstList;
    const lists = await sequential(heavyClient, N_LIST, (c) => c.listTools());
    // The same lists from a raw HTTP client: what the route takes, without the SDK client's parsing and schema checks.
    const raw = new RawSession(proxyUrl, heavyToken);
    await raw.open({ call: false });
    const rawLists = await sequential(raw, N_LIST, (c) => c.request("tools/list", {}));
    // And at 2026-07-28: SDK v2 clients, and raw stateless POSTs (the route builds the member's proxy per request).
    const heavy2026 = await connect2026(proxyUrl, heavyToken);
    clients.push(heavy2026);
    const lists2026 = await sequential(heavy2026, N_LIST, (c) => c.listTools());
    const raw2026Lists = await sequential(proxyUrl, N_LIST, (url) => listAt2026(url, heavyToken));
    console.log(`\n== tools/list for a member with 20 servers x 50 tools (${listed.tools.length} tools)`);
    console.log(
      table([
        ["client", "first (cold cache)", "p50", "p99"],
        ["SDK 1.x", ms(cold), ms(lists.stats.p50), ms(lists.stats.p99)],
        ["raw HTTP (response read, not parsed)", "-", ms(rawLists.stats.p50), ms(rawLists.stats.p99)],
        [`SDK v2 at ${REV}`, "-", ms(lists2026.stats.p50), ms(lists2026.stats.p99)],
        [`raw HTTP at ${REV}`, "-", ms(raw2026Lists.stats.p50), ms(raw2026Lists.stats.p99)],
      ]),
    );
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    if (web?.pid) {
      try {
        process.kill(-web.pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
    await stage.close();
  }
}
