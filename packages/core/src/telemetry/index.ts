import {
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from "@opentelemetry/api";

/**
 * Tracing hooks of the proxy engine, on OpenTelemetry's API only: until a process registers a tracer provider
 * (runtime's `startTracing`, when the operator configured an exporter) every call here is a no-op that returns
 * at its first check, so the hot path pays nothing for it. Attributes follow OpenTelemetry's semantic
 * conventions for MCP (`mcp.*`, GenAI's `gen_ai.*`, `jsonrpc.*`, `rpc.*`, `network.*`, `error.type`).
 */
const tracer = trace.getTracer("@switchboard/core");

/** Attribute names of the conventions (MCP and GenAI, Development status), and ours under `switchboard.`. */
export const TRACE_ATTRIBUTES = {
  method: "mcp.method.name",
  sessionId: "mcp.session.id",
  protocolVersion: "mcp.protocol.version",
  resourceUri: "mcp.resource.uri",
  toolName: "gen_ai.tool.name",
  promptName: "gen_ai.prompt.name",
  operation: "gen_ai.operation.name",
  requestId: "jsonrpc.request.id",
  statusCode: "rpc.response.status_code",
  errorType: "error.type",
  networkTransport: "network.transport",
  networkProtocolName: "network.protocol.name",
  networkProtocolVersion: "network.protocol.version",
  instanceId: "switchboard.instance.id",
  installationId: "switchboard.installation.id",
  attempt: "switchboard.attempt",
} as const;

const A = TRACE_ATTRIBUTES;

/** A JSON-RPC request as the route received it (only what its span describes is read). */
export interface TracedMessage {
  method: string;
  id?: string | number | null;
  params?: unknown;
}

/** Where the request came from: its HTTP headers (trace context, protocol version) and session. */
export interface RequestOrigin {
  headers?: Readonly<Record<string, string | string[] | undefined>>;
  sessionId?: string;
  protocolVersion?: string;
  /** `1.1`, `2`: the HTTP version of the request, when it came over HTTP. */
  httpVersion?: string;
}

/** The span of one MCP request the route (or the worker's bridge) serves. */
export interface TracedRequest {
  /** Runs `fn` with the request's span active: upstream attempts started inside become its children. */
  run<T>(fn: () => T): T;
  /**
   * Ends the span with what answered the request: a JSON-RPC response, a result, a thrown error, or
   * `{ httpStatus }` when the route answered it without a JSON-RPC answer recorded here.
   */
  end(answer?: unknown): void;
}

function paramsOf(message: TracedMessage): Record<string, unknown> | undefined {
  const params = message.params;
  return typeof params === "object" && params !== null ? (params as Record<string, unknown>) : undefined;
}

function stringParam(params: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = params?.[key];
  return typeof value === "string" ? value : undefined;
}

/** `{method} {target}`, the target being the tool or prompt named (low cardinality, as the conventions ask). */
function spanName(method: string, target: string | undefined): string {
  return target === undefined ? method : `${method} ${target}`;
}

/** What a request's method says about it: the tool or prompt it names, the resource it reads. */
function methodAttributes(method: string, params: Record<string, unknown> | undefined, attributes: Attributes) {
  attributes[A.method] = method;
  if (method === "tools/call") {
    const name = stringParam(params, "name");
    if (name !== undefined) attributes[A.toolName] = name;
    attributes[A.operation] = "execute_tool";
  } else if (method === "prompts/get") {
    const name = stringParam(params, "name");
    if (name !== undefined) attributes[A.promptName] = name;
  } else if (method.startsWith("resources/")) {
    const uri = stringParam(params, "uri");
    if (uri !== undefined) attributes[A.resourceUri] = uri;
  }
}

function targetOf(method: string, params: Record<string, unknown> | undefined): string | undefined {
  return method === "tools/call" || method === "prompts/get" ? stringParam(params, "name") : undefined;
}

/**
 * The parent of a request's span: the client's context from `params._meta` (as MCP clients propagate it, and as
 * the conventions prefer), else from the HTTP headers; when both are there and differ, the headers' becomes a link.
 */
function parentOf(
  params: Record<string, unknown> | undefined,
  headers: RequestOrigin["headers"],
): { parent: Context; links?: Link[] } {
  const meta = params?._meta;
  const fromMeta =
    typeof meta === "object" && meta !== null ? propagation.extract(ROOT_CONTEXT, meta as object) : ROOT_CONTEXT;
  const fromHeaders = headers ? propagation.extract(ROOT_CONTEXT, headers) : ROOT_CONTEXT;
  const metaSpan = trace.getSpanContext(fromMeta);
  if (!metaSpan || !isSpanContextValid(metaSpan)) return { parent: fromHeaders };
  const headerSpan = trace.getSpanContext(fromHeaders);
  if (!headerSpan || !isSpanContextValid(headerSpan) || headerSpan.spanId === metaSpan.spanId)
    return { parent: fromMeta };
  return { parent: fromMeta, links: [{ context: headerSpan }] };
}

/** Whether `span` is nothing (no tracer provider registered, nothing to propagate). */
function untraced(span: Span): boolean {
  return !span.isRecording() && !isSpanContextValid(span.spanContext());
}

/**
 * Starts the span of one MCP request the route serves (span kind SERVER, child of the client's trace context).
 * Call `end` once with its answer; requests without an answer (the client went away) end with `end()`.
 * Undefined when nothing is traced (no tracer provider): the caller goes on as if this were not here.
 */
export function traceRequest(message: TracedMessage, origin: RequestOrigin = {}): TracedRequest | undefined {
  const params = paramsOf(message);
  const { parent, links } = parentOf(params, origin.headers);
  const span = tracer.startSpan(
    spanName(message.method, targetOf(message.method, params)),
    { kind: SpanKind.SERVER, links },
    parent,
  );
  if (untraced(span)) return undefined;
  if (span.isRecording()) {
    const attributes: Attributes = {
      [A.networkTransport]: "tcp",
      [A.networkProtocolName]: "http",
    };
    methodAttributes(message.method, params, attributes);
    if (message.id !== undefined && message.id !== null) attributes[A.requestId] = String(message.id);
    if (origin.sessionId) attributes[A.sessionId] = origin.sessionId;
    if (origin.protocolVersion) attributes[A.protocolVersion] = origin.protocolVersion;
    if (origin.httpVersion) attributes[A.networkProtocolVersion] = origin.httpVersion;
    span.setAttributes(attributes);
  }
  const active = trace.setSpan(parent, span);
  let ended = false;
  return {
    run: (fn) => context.with(active, fn),
    end: (answer) => {
      if (ended) return;
      ended = true;
      recordOutcome(span, answer);
      span.end();
    },
  };
}

/** The upstream request an attempt sends, as its span names it. */
export interface TracedAttempt {
  kind: "tool" | "resource" | "prompt";
  /** The upstream's own name of the tool or prompt, or the resource's URI. */
  target: string;
  instanceId: string;
  installationId: string;
  attempt: number;
}

const ATTEMPT_METHODS = { tool: "tools/call", resource: "resources/read", prompt: "prompts/get" } as const;

/** How an attempt's outcome reads: a result that is a tool's error, and the class of a failure. */
export interface AttemptOutcome<T> {
  isToolError?: (value: T) => boolean;
  /** Low-cardinality `error.type` of a failure that is no JSON-RPC error (`connection_refused`, `timeout`). */
  errorType?: (error: unknown) => string;
}

/**
 * Runs one attempt of a forwarded request in a span of its own (kind CLIENT, child of the request's span), so
 * that what it sends upstream (HTTP headers, `params._meta`) carries its context.
 */
export function traceAttempt<T>(
  attempt: TracedAttempt,
  run: () => Promise<T>,
  outcome: AttemptOutcome<T> = {},
): Promise<T> {
  const method = ATTEMPT_METHODS[attempt.kind];
  const parent = context.active();
  const span = tracer.startSpan(
    spanName(method, attempt.kind === "resource" ? undefined : attempt.target),
    { kind: SpanKind.CLIENT },
    parent,
  );
  if (untraced(span)) return run();
  if (span.isRecording()) {
    const attributes: Attributes = {
      [A.instanceId]: attempt.instanceId,
      [A.installationId]: attempt.installationId,
      [A.attempt]: attempt.attempt,
    };
    methodAttributes(
      method,
      attempt.kind === "resource" ? { uri: attempt.target } : { name: attempt.target },
      attributes,
    );
    span.setAttributes(attributes);
  }
  return context.with(trace.setSpan(parent, span), run).then(
    (value) => {
      recordOutcome(span, outcome.isToolError?.(value) ? { isError: true } : value);
      span.end();
      return value;
    },
    (error: unknown) => {
      recordOutcome(span, error, outcome.errorType);
      span.end();
      throw error;
    },
  );
}

/** Sets attributes on the active span (an attempt learning which revision its upstream speaks, say). */
export function annotateActiveSpan(attributes: Attributes): void {
  const span = trace.getActiveSpan();
  if (span?.isRecording()) span.setAttributes(attributes);
}

/**
 * Writes the active context into `carrier` with the configured propagator (W3C `traceparent` / `tracestate`):
 * HTTP headers of an upstream request, or a request's `params._meta`. Without a tracer provider it writes nothing.
 */
export function injectTraceContext(carrier: Record<string, unknown>): void {
  propagation.inject(context.active(), carrier);
}

/**
 * error.type and the span status from an answer: a JSON-RPC error's code (also `rpc.response.status_code`), a tool
 * result with `isError` (`tool_error`), or a thrown error (its JSON-RPC code when it has one, else its name).
 */
function recordOutcome(span: Span, answer: unknown, errorType?: (error: unknown) => string): void {
  if (!span.isRecording() || typeof answer !== "object" || answer === null) return;
  const fail = (type: string, message: string | undefined, code?: number) => {
    span.setAttribute(A.errorType, type);
    if (code !== undefined) span.setAttribute(A.statusCode, String(code));
    span.setStatus({ code: SpanStatusCode.ERROR, message });
  };
  if (answer instanceof Error) {
    const code = (answer as { code?: unknown }).code;
    return typeof code === "number"
      ? fail(String(code), answer.message, code)
      : fail(errorType?.(answer) ?? (answer.constructor.name || "_OTHER"), answer.message);
  }
  const message = answer as { error?: { code?: unknown; message?: unknown }; result?: unknown; isError?: unknown };
  if (message.error && typeof message.error === "object") {
    const code = typeof message.error.code === "number" ? message.error.code : undefined;
    const text = typeof message.error.message === "string" ? message.error.message : undefined;
    return fail(code === undefined ? "_OTHER" : String(code), text, code);
  }
  const result = (message.result ?? message) as { isError?: unknown };
  if (result.isError === true) return fail("tool_error", undefined);
  // Answered by the route itself before any JSON-RPC answer was recorded (a refusal): its HTTP status.
  const status = (answer as { httpStatus?: unknown }).httpStatus;
  if (typeof status === "number" && status >= 400) fail(String(status), undefined);
}
