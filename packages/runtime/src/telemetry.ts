import { context, propagation, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  NodeTracerProvider,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-node";
import type { Telemetry } from "bullmq";
import { BullMQOtel } from "bullmq-otel";
import type { TelemetryEnv } from "./env-schema";

/**
 * OpenTelemetry for the gateway and the worker: one tracer provider per process, started only when the operator
 * configured an exporter with OpenTelemetry's standard variables. Until then nothing is registered and every
 * tracing call of the proxy engine (`@switchboard/core/telemetry`, on the API only) is a no-op.
 *
 * The OTLP exporter reads the rest of its configuration itself (`OTEL_EXPORTER_OTLP_HEADERS`, `..._TIMEOUT`,
 * `..._TRACES_ENDPOINT`, ...), the provider its sampler (`OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`) and
 * the resource `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES`. Other signals (an OTLP LoggerProvider for the
 * audit stream, say) belong beside this one, sharing `telemetryResource`. The variables it decides on are in
 * `telemetryEnvShape` (env-schema), part of every process's environment.
 */
/** Which trace exporter the environment asks for: none unless an exporter or an OTLP endpoint is named. */
export function tracesExporter(env: TelemetryEnv): "otlp" | "console" | undefined {
  if (env.OTEL_SDK_DISABLED === "true") return undefined;
  if (env.OTEL_TRACES_EXPORTER === "none") return undefined;
  if (env.OTEL_TRACES_EXPORTER) return env.OTEL_TRACES_EXPORTER;
  return env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? "otlp" : undefined;
}

/** The process's resource: `service.name` (OTEL_SERVICE_NAME wins) and OTEL_RESOURCE_ATTRIBUTES. */
export function telemetryResource(serviceName: string) {
  return resourceFromAttributes({ "service.name": serviceName }).merge(detectResources({ detectors: [envDetector] }));
}

let provider: NodeTracerProvider | undefined;
let jobTelemetry: BullMQOtel | undefined;

export interface StartTracingOptions {
  /** What to export to instead of the environment's choice (tests and the bench: an in-memory exporter). */
  spanProcessors?: SpanProcessor[];
}

/**
 * Starts tracing for this process when the environment asks for it (or `spanProcessors` are given): registers
 * the tracer provider, the AsyncLocalStorage context manager and the W3C trace-context and baggage propagators.
 * Returns whether tracing is on. Call once, before the first request; `stopTracing` flushes on shutdown.
 */
export function startTracing(serviceName: string, env: TelemetryEnv, options: StartTracingOptions = {}): boolean {
  if (provider) return true;
  let spanProcessors = options.spanProcessors;
  if (!spanProcessors) {
    const exporter = tracesExporter(env);
    if (!exporter) return false;
    spanProcessors = [
      new BatchSpanProcessor(exporter === "otlp" ? new OTLPTraceExporter() : new ConsoleSpanExporter()),
    ];
  }
  provider = new NodeTracerProvider({ resource: telemetryResource(serviceName), spanProcessors });
  provider.register();
  jobTelemetry = new BullMQOtel({ tracerName: "bullmq" });
  return true;
}

/**
 * Sends what is buffered (SIGTERM) and unregisters the provider, context manager and propagators, so that the
 * process is as if tracing had never started; a no-op when tracing is off.
 */
export async function stopTracing(): Promise<void> {
  const stopping = provider;
  if (!stopping) return;
  provider = undefined;
  jobTelemetry = undefined;
  await stopping.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
}

/**
 * BullMQ's telemetry for queues and workers while tracing is on: adding a job records its context in the job
 * (BullMQ's `telemetry.metadata`), and the worker processes it in a span continuing that trace. Undefined
 * otherwise, so that BullMQ does no tracing work at all.
 */
export function queueTelemetry(): Telemetry | undefined {
  return jobTelemetry;
}
