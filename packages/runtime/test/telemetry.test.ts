import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { injectTraceContext, traceAttempt, traceRequest } from "@switchboard/core/telemetry";
import { afterAll, describe, expect, it } from "vitest";
import { startTracing, stopTracing, tracesExporter } from "../src/telemetry";

/**
 * The tracer provider's set-up and the proxy engine's tracing hooks (core, on the API), without a route: what is
 * off by default, the parent a request takes from `_meta` or its headers, and the outcome each span records.
 * The route, the bridge and the upstreams are followed end to end in apps/gateway/test/tracing.test.ts.
 */

const CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const META_PARENT = `00-${CLIENT_TRACE}-00f067aa0ba902b7-01`;
const HEADER_PARENT = `00-${CLIENT_TRACE}-b7ad6b7169203331-01`;

afterAll(() => stopTracing());

describe("tracing off", () => {
  it("is the default: no exporter unless one, or an OTLP endpoint, is named", () => {
    expect(tracesExporter({})).toBeUndefined();
    expect(tracesExporter({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe("otlp");
    expect(tracesExporter({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" })).toBe("otlp");
    expect(tracesExporter({ OTEL_TRACES_EXPORTER: "console" })).toBe("console");
    expect(tracesExporter({ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })).toBe(
      undefined,
    );
    expect(tracesExporter({ OTEL_SDK_DISABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })).toBe(undefined);
    expect(startTracing("test", {})).toBe(false);
  });

  it("leaves requests untraced and the client's _meta as it came", async () => {
    expect(traceRequest({ method: "tools/call", id: 1, params: { _meta: { traceparent: META_PARENT } } })).toBe(
      undefined,
    );
    const meta: Record<string, unknown> = { traceparent: META_PARENT };
    await traceAttempt({ kind: "tool", target: "t", instanceId: "i", installationId: "n", attempt: 1 }, async () =>
      injectTraceContext(meta),
    );
    expect(meta).toEqual({ traceparent: META_PARENT });
  });
});

describe("tracing on", () => {
  const exporter = new InMemorySpanExporter();

  it("starts with the processors it is given", () => {
    expect(startTracing("test", {}, { spanProcessors: [new SimpleSpanProcessor(exporter)] })).toBe(true);
  });

  it("parents a request on its _meta context, links its headers' context, and records a JSON-RPC error", () => {
    const request = traceRequest(
      { method: "tools/call", id: 7, params: { name: "srv-search", _meta: { traceparent: META_PARENT } } },
      { headers: { traceparent: HEADER_PARENT }, sessionId: "s1", protocolVersion: "2025-11-25" },
    );
    expect(request).toBeDefined();
    request!.end({ jsonrpc: "2.0", id: 7, error: { code: -32602, message: "Invalid params: name must be a string." } });
    const [span] = exporter.getFinishedSpans();
    expect(span!.name).toBe("tools/call srv-search");
    expect(span!.kind).toBe(SpanKind.SERVER);
    expect(span!.spanContext().traceId).toBe(CLIENT_TRACE);
    expect(span!.parentSpanContext?.spanId).toBe("00f067aa0ba902b7");
    expect(span!.links.map((l) => l.context.spanId)).toEqual(["b7ad6b7169203331"]);
    expect(span!.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "srv-search",
      "gen_ai.operation.name": "execute_tool",
      "jsonrpc.request.id": "7",
      "mcp.session.id": "s1",
      "mcp.protocol.version": "2025-11-25",
      "error.type": "-32602",
      "rpc.response.status_code": "-32602",
    });
    expect(span!.status).toEqual({ code: SpanStatusCode.ERROR, message: "Invalid params: name must be a string." });
    exporter.reset();
  });

  it("takes the headers' context when _meta has none", () => {
    traceRequest(
      { method: "resources/read", id: "r", params: { uri: "srv|file:///a" } },
      {
        headers: { traceparent: HEADER_PARENT },
      },
    )!.end({ jsonrpc: "2.0", id: "r", result: { contents: [] } });
    const [span] = exporter.getFinishedSpans();
    expect(span!.name).toBe("resources/read");
    expect(span!.parentSpanContext?.spanId).toBe("b7ad6b7169203331");
    expect(span!.attributes["mcp.resource.uri"]).toBe("srv|file:///a");
    expect(span!.attributes["error.type"]).toBeUndefined();
    exporter.reset();
  });

  it("runs each attempt as a child of its request, injects its context upstream and records how it failed", async () => {
    const request = traceRequest({ method: "tools/call", id: 1, params: { name: "srv-t" } })!;
    const meta: Record<string, unknown> = { traceparent: META_PARENT };
    const attempt = { kind: "tool" as const, target: "t", instanceId: "i1", installationId: "n1" };
    await request.run(async () => {
      await expect(
        traceAttempt({ ...attempt, attempt: 1 }, () => Promise.reject(new Error("connect ECONNREFUSED")), {
          errorType: () => "connection_refused",
        }),
      ).rejects.toThrow("ECONNREFUSED");
      await traceAttempt(
        { ...attempt, attempt: 2 },
        async () => {
          injectTraceContext(meta);
          return { isError: true, content: [] };
        },
        { isToolError: (r) => r.isError },
      );
    });
    request.end({ jsonrpc: "2.0", id: 1, result: { isError: true, content: [] } });
    const spans = exporter.getFinishedSpans();
    const server = spans.find((s) => s.kind === SpanKind.SERVER)!;
    const [first, second] = spans.filter((s) => s.kind === SpanKind.CLIENT);
    expect(server.attributes["error.type"]).toBe("tool_error");
    for (const child of [first!, second!]) {
      expect(child.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
      expect(child.name).toBe("tools/call t");
    }
    expect(first!.attributes).toMatchObject({ "switchboard.attempt": 1, "error.type": "connection_refused" });
    expect(second!.attributes).toMatchObject({
      "switchboard.attempt": 2,
      "error.type": "tool_error",
      "switchboard.instance.id": "i1",
      "gen_ai.tool.name": "t",
    });
    // The upstream continues from the second attempt, not from the client's context.
    expect(meta.traceparent).toBe(`00-${server.spanContext().traceId}-${second!.spanContext().spanId}-01`);
  });
});
