import { randomBytes } from "node:crypto";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SpanKind } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { demoServer } from "@switchboard/core/testing/demo-server";
import type { StreamableHttpFixture } from "@switchboard/core/testing/streamable-http-server";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { setTeamStdioAllowed } from "@switchboard/db/queries/deployment";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { allowCommands } from "@switchboard/db/testing";
import { closeJobs } from "@switchboard/runtime/jobs";
import { startTracing, stopTracing } from "@switchboard/runtime/telemetry";
import { startOtlpReceiver } from "@switchboard/testing/otlp-receiver";
import { waitUntil } from "@switchboard/testing/wait";
import { startWorkerProcess } from "@switchboard/testing/worker-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routeBase, startRouteWithBridge } from "./support/mcp";
import { ACCEPT, startRouteTeam, stopRouteTeam } from "./support/route-team";

/**
 * OpenTelemetry through the route: a client's W3C trace context (HTTP header or `_meta`) is the parent of the
 * request's span, each upstream attempt is a child of it, and the upstream receives the same trace (HTTP headers
 * and `_meta` for a remote server; `_meta` for a stdio server behind the worker's bridge, whose own spans reach a
 * real OTLP/HTTP endpoint). Both protocol revisions.
 */

const FIXTURES = path.resolve(import.meta.dirname, "fixtures");
const REV_2026 = "2026-07-28";
const exporter = new InMemorySpanExporter();
/** The worker exports in batches over HTTP: on a loaded machine that can take a while. */
const POLL = { timeout: 15_000, interval: 100 };
let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
let upstream: StreamableHttpFixture;
let worker: Awaited<ReturnType<typeof startWorkerProcess>>;
let token: string;
let stdioInstanceId: string;
/** What the HTTP upstream's `meta` tool saw in its request's `_meta`, call by call. */
const seenMeta: Array<Record<string, unknown> | null> = [];

beforeAll(async () => {
  startTracing("switchboard-gateway", {}, { spanProcessors: [new SimpleSpanProcessor(exporter)] });
  otlp = await startOtlpReceiver();
  const { bridgeSecret, bridgePort } = await startRouteWithBridge();
  const demo = demoServer();
  const team = await startRouteTeam(() => {
    const server = demo();
    server.registerTool("meta", { description: "Reports the request's _meta" }, async (extra) => {
      seenMeta.push((extra._meta as Record<string, unknown> | undefined) ?? null);
      return { content: [{ type: "text", text: "seen" }] };
    });
    return server;
  });
  upstream = team.upstream;
  token = await team.newToken("traced");
  const db = getDb();
  await setTeamStdioAllowed(db, { teamId: team.team.id, allowed: true });
  await allowCommands(db, [{ kind: "executable", name: process.execPath }]);
  const template = await seedTemplate(db, {
    teamId: team.team.id,
    slug: "stdio",
    name: "Stdio meta",
    transport: "stdio",
    command: process.execPath,
    args: [path.join(FIXTURES, "meta-stdio-server.mjs")],
  });
  const installation = await seedInstallation(db, { template });
  stdioInstanceId = installation.instances.find((i) => i.userId === team.alice.id)!.id;
  // The worker exports its spans (the bridge's, its jobs') over OTLP/HTTP to this test, promptly.
  worker = await startWorkerProcess({
    bridgeSecret,
    bridgePort,
    readOnlyPaths: [FIXTURES],
    env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: "100" },
  });
  await waitUntil(
    async () => (await db.instance.findUniqueOrThrow({ where: { id: stdioInstanceId } })).status === "online",
    "the stdio server online",
    45_000,
    250,
  );
}, 90_000);

afterAll(async () => {
  await stopRouteTeam(upstream);
  await worker?.stop();
  await otlp?.stop();
  await closeJobs();
  await stopTracing();
  await disconnectDb();
});

/** A client's own trace context: a fresh trace and the client span the request is sent under. */
function clientContext() {
  const traceId = randomBytes(16).toString("hex");
  const spanId = randomBytes(8).toString("hex");
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01`, tracestate: "client=1" };
}

type ClientContext = ReturnType<typeof clientContext>;

/** A tools/call from an SDK 1.x client in a 2025-11-25 session, its trace context in the HTTP headers. */
async function callInSession(name: string, client: ClientContext): Promise<string> {
  const session = new Client({ name: "traced", version: "1.0.0" });
  await session.connect(
    new StreamableHTTPClientTransport(new URL("/api/mcp", routeBase()), {
      requestInit: {
        headers: { authorization: `Bearer ${token}`, traceparent: client.traceparent, tracestate: client.tracestate },
      },
    }),
  );
  try {
    const result = await session.callTool({ name, arguments: {} });
    expect(result.isError).not.toBe(true);
    return (result.content as Array<{ text: string }>)[0]!.text;
  } finally {
    await session.close();
  }
}

/** A 2026-07-28 tools/call (stateless), its trace context in `params._meta`, as MCP clients propagate it. */
async function call2026(name: string, client: ClientContext): Promise<string> {
  const response = await fetch(new URL("/api/mcp", routeBase()), {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: ACCEPT,
      "mcp-protocol-version": REV_2026,
      "mcp-method": "tools/call",
      "mcp-name": name,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: "call-1",
      method: "tools/call",
      params: {
        name,
        arguments: {},
        _meta: {
          "io.modelcontextprotocol/protocolVersion": REV_2026,
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1.0.0" },
          "io.modelcontextprotocol/clientCapabilities": {},
          traceparent: client.traceparent,
          tracestate: client.tracestate,
        },
      },
    }),
  });
  const body = (await response.json()) as { result?: { content: Array<{ text: string }> } };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.result!.content[0]!.text;
}

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

/** The route's spans of one trace: the request's (SERVER) and its upstream attempts (CLIENT), once both ended. */
async function routeSpans(traceId: string, tool: string) {
  let request: ReadableSpan | undefined;
  let attempts: ReadableSpan[] = [];
  await expect
    .poll(() => {
      const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
      request = spans.find((s) => s.kind === SpanKind.SERVER && s.name === `tools/call ${tool}`);
      attempts = spans.filter(
        (s) => s.kind === SpanKind.CLIENT && request && parentOf(s) === request.spanContext().spanId,
      );
      return attempts.length;
    }, POLL)
    .toBeGreaterThan(0);
  return { request: request!, attempts };
}

function parseTraceparent(value: unknown): { traceId: string; spanId: string } {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(String(value));
  expect(match, `traceparent ${String(value)}`).not.toBeNull();
  return { traceId: match![1]!, spanId: match![2]! };
}

describe.each([
  { revision: "2025-11-25", call: callInSession, carried: "HTTP headers" },
  { revision: REV_2026, call: call2026, carried: "_meta" },
])("a $revision request whose client sent its trace context in $carried", ({ revision, call }) => {
  it("is one span under the client's, with its upstream attempt as a child, and the HTTP upstream continues the trace", async () => {
    const client = clientContext();
    const seenBefore = upstream.requests.length;
    await call("my-demo-meta", client);

    const { request, attempts } = await routeSpans(client.traceId, "my-demo-meta");
    expect(parentOf(request)).toBe(client.spanId);
    expect(request.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "my-demo-meta",
      "gen_ai.operation.name": "execute_tool",
      "mcp.protocol.version": revision,
      "network.transport": "tcp",
      "network.protocol.name": "http",
    });
    expect(request.attributes["jsonrpc.request.id"]).toBeDefined();
    if (revision === REV_2026) expect(request.attributes["mcp.session.id"]).toBeUndefined();
    else expect(request.attributes["mcp.session.id"]).toEqual(expect.any(String));
    expect(request.attributes["error.type"]).toBeUndefined();

    expect(attempts).toHaveLength(1);
    const [attempt] = attempts;
    expect(attempt!.name).toBe("tools/call meta");
    expect(attempt!.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "meta",
      "gen_ai.operation.name": "execute_tool",
      "switchboard.attempt": 1,
    });

    // The upstream got the attempt's context in its HTTP headers and in the request's _meta.
    const headers = upstream.requests
      .slice(seenBefore)
      .map((r) => r.headers.traceparent)
      .filter((t) => t !== undefined);
    expect(headers.map((t) => parseTraceparent(t))).toContainEqual({
      traceId: client.traceId,
      spanId: attempt!.spanContext().spanId,
    });
    expect(parseTraceparent(seenMeta.at(-1)?.traceparent)).toEqual({
      traceId: client.traceId,
      spanId: attempt!.spanContext().spanId,
    });
    expect(seenMeta.at(-1)?.tracestate).toBe(client.tracestate);
  });

  it("reaches a stdio server through the worker's bridge in the same trace, the bridge's span between them", async () => {
    const client = clientContext();
    const text = await call("stdio-meta", client);

    const { attempts } = await routeSpans(client.traceId, "stdio-meta");
    expect(attempts).toHaveLength(1);
    const attemptId = attempts[0]!.spanContext().spanId;
    // The worker's bridge served the attempt in a span of its own (exported over OTLP/HTTP by the worker process);
    // a connection the attempt opened first (initialize) is its child too.
    const bridged = () =>
      otlp.spans.find(
        (s) => s.traceId === client.traceId && s.parentSpanId === attemptId && s.name === "tools/call meta",
      );
    await expect.poll(bridged, POLL).toMatchObject({
      service: "switchboard-worker",
      kind: 2,
      attributes: { "mcp.method.name": "tools/call", "gen_ai.tool.name": "meta" },
    });
    const bridge = bridged()!;
    // The stdio server got the trace in its request's _meta, as the bridge's child.
    const meta = JSON.parse(text) as Record<string, unknown>;
    expect(parseTraceparent(meta.traceparent)).toEqual({ traceId: client.traceId, spanId: bridge.spanId });
  });
});

describe("worker jobs", () => {
  it("continue the trace of whoever queued them: a job's processing span is the child of its adding span", async () => {
    await expect
      .poll(() => {
        const added = new Set(otlp.spans.filter((s) => s.kind === 4).map((s) => s.spanId));
        return otlp.spans.some((s) => s.kind === 5 && s.parentSpanId !== undefined && added.has(s.parentSpanId));
      }, POLL)
      .toBe(true);
  });
});
