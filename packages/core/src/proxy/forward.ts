import type { Redactor } from "../config/redact";
import type { GuardrailFinding } from "../guardrails";
import {
  classifyError,
  isJsonRpcToolError,
  requestDelivery,
  RetryFailedError,
  retrySafety,
  withRetry,
  type ErrorKind,
  type RetrySafety,
} from "../policies";
import { callAdmission } from "../status";
import { PermanentlyFailedError } from "../stdio/events";
import { traceAttempt } from "../telemetry";
import { estimateTokens } from "../tokens";
import { blockedMessage } from "./blocked";
import type { RecoveryCoordinator } from "./recovery";
import type { Route } from "./router";
import { CALL_METHOD } from "./types";
import type {
  CallKind,
  CallOutcome,
  CallRecord,
  CallSink,
  ProxyMember,
  ProxyMetrics,
  RefusalCause,
  RetryOverrides,
  StatusSink,
  UpstreamClient,
  UpstreamProvider,
} from "./types";

/** Failures that say where the workers stand, not how the server is: a call reports no status for them. */
const WORKERS_TO_SAY: ReadonlySet<ErrorKind> = new Set(["worker_unavailable", "worker_handover"]);

/** A call the proxy answers itself: blocked by status, or failed after its retries. */
export class CallRejectedError extends Error {
  constructor(
    message: string,
    readonly outcome: Extract<CallOutcome, "blocked" | "error">,
    override readonly cause?: unknown,
  ) {
    super(message, { cause });
  }
}

export interface ForwardDeps {
  member: ProxyMember;
  upstreams: UpstreamProvider;
  status: StatusSink;
  recovery: RecoveryCoordinator;
  calls: CallSink;
  retry?: RetryOverrides;
  now: () => number;
  /**
   * The instance's secrets, for the messages the proxy composes from a failure (a transport error, an HTTP
   * error body): they go to the member's client as our own text, so a team-tier key the upstream echoed in an
   * error page must not. What the upstream answers itself (a tool result, a JSON-RPC error) is relayed as sent.
   */
  redactor?: (instanceId: string) => Promise<Redactor>;
  /** Counters and latencies for the app's metrics; nothing is measured without it. */
  metrics?: ProxyMetrics;
}

export interface ForwardRequest<T> {
  route: Route;
  kind: CallKind;
  requested: string;
  arguments: unknown;
  signal: AbortSignal;
  run: (client: UpstreamClient) => Promise<T>;
  /** Whether a successful answer is a tool-level error (`isError: true`). */
  isToolError?: (value: T) => boolean;
  /**
   * Asked after a failed attempt: false when the attempt is known to have reached the upstream (it asked the
   * client something), so a retryable failure is not retried and the request is not run twice.
   */
  mayRetry?: () => boolean;
  /**
   * Asked after a failed attempt: running the request twice is harmless, so an attempt that may have reached
   * the upstream can be retried. Reads (resources, prompts) are by default; a tool only when annotated
   * `readOnlyHint` or `idempotentHint` (`isRepeatableTool`). Otherwise a request is retried only when it
   * provably did not reach the upstream (policy `retrySafety`).
   */
  repeatable?: () => boolean;
  /** What the guardrails found in the call, read when it is recorded (proxy/guarded.ts). */
  guardrailFindings?: () => readonly GuardrailFinding[] | undefined;
}

/**
 * The life of one forwarded request: admission by status, the retry loop (each attempt asks the provider for
 * the client again, so a dropped connection is re-established between attempts), recovery detection, status
 * reporting on final failure, and one call record whatever happens.
 */
export async function forward<T>(deps: ForwardDeps, request: ForwardRequest<T>): Promise<T> {
  const { instance } = request.route;
  const startedAt = deps.now();
  let attempts = 0;
  const record = callRecorder(deps, request, startedAt, () => attempts);

  const admission = callAdmission(instance.status);
  if (!admission.allowed) {
    const message = blockedMessage(instance, admission);
    record("blocked", { message });
    throw new CallRejectedError(message, "blocked");
  }

  // Whether the failed attempt got as far as sending (a failure to get a connection sent nothing), and the
  // retry the policy withheld because the upstream may have run the request.
  let sending = false;
  let withheld: Extract<RetrySafety, { retry: false }> | undefined;
  try {
    const { value } = await withRetry(
      (attempt) =>
        traceAttempt(
          {
            kind: request.kind,
            target: request.route.target,
            instanceId: instance.instanceId,
            installationId: instance.installationId,
            attempt,
          },
          async () => {
            attempts = attempt;
            sending = false;
            const client = await deps.upstreams.get(instance.instanceId);
            sending = true;
            return request.run(client);
          },
          { isToolError: request.isToolError, errorType: (error) => classifyError(error).kind },
        ),
      {
        ...deps.retry,
        signal: request.signal,
        classify: (error) => {
          const classification = classifyError(error);
          safeMeasure(() =>
            deps.metrics?.attemptFailed({ installation: instance.slug, errorClass: classification.kind }),
          );
          if (!classification.retryable) return classification;
          const safety = retrySafety({
            delivery: sending ? requestDelivery(error) : "not_sent",
            repeatable: request.repeatable?.() ?? request.kind !== "tool",
            askedClient: request.mayRetry?.() === false,
          });
          if (safety.retry) return classification;
          withheld = safety;
          return { ...classification, retryable: false };
        },
      },
    );
    if (admission.recovering) deps.recovery.detected(instance.instanceId);
    const toolError = request.isToolError?.(value) ?? false;
    record(toolError ? "tool_error" : "success", { result: value });
    return value;
  } catch (error) {
    if (isJsonRpcToolError(error)) {
      // The server answered, so it is reachable: an error answer still proves recovery.
      if (admission.recovering) deps.recovery.detected(instance.instanceId);
      record("tool_error", { message: error.message });
      throw error;
    }
    if (error instanceof RetryFailedError && error.cause instanceof PermanentlyFailedError) {
      // The supervisor already reported permanently_failed; "error" must not overwrite it.
      const message = `${instance.name} crashed repeatedly and was stopped. An admin must restart it from the dashboard.`;
      record("error", { message });
      throw new CallRejectedError(message, "error", error);
    }
    if (error instanceof RetryFailedError && WORKERS_TO_SAY.has(error.classification.kind)) {
      // No worker runs stdio servers, or one is taking the instance over from a worker that stopped: nothing is
      // wrong with the server, and its status is the workers' (and their sweep's) to write, not each call's.
      const message = `${instance.name}: ${error.classification.message}`;
      record("error", { message });
      throw new CallRejectedError(message, "error", error);
    }
    if (error instanceof RetryFailedError) {
      await Promise.resolve(deps.status.callFailed(instance.instanceId, error.classification, startedAt)).catch(
        () => {},
      );
      const detail = await redacted(deps, instance.instanceId, error.classification.message);
      const message =
        withheld?.why === "may_have_run"
          ? `${instance.name} failed during ${request.requested} (${detail}) and it was not retried, because it may already have run (the tool is not marked read-only or idempotent): check its effect before trying again.`
          : `${instance.name} failed: ${detail}`;
      record("error", { message });
      throw new CallRejectedError(message, "error", error);
    }
    // Cancelled by the client (or a bug of ours): not evidence about the upstream, so no status change.
    const message = await redacted(deps, instance.instanceId, error instanceof Error ? error.message : String(error));
    record("error", { message });
    throw new CallRejectedError(`${instance.name}: ${message}`, "error", error);
  }
}

/**
 * The one call record (and metrics) of a forwarded request, whatever ends it. `attempts` is read when the record
 * is made.
 */
function callRecorder(
  deps: Pick<ForwardDeps, "member" | "calls" | "metrics" | "now">,
  request: Pick<ForwardRequest<unknown>, "route" | "kind" | "requested" | "arguments" | "guardrailFindings">,
  startedAt: number,
  attempts: () => number,
) {
  const { instance } = request.route;
  return (outcome: CallOutcome, extra: { message?: string; result?: unknown } = {}) => {
    const json = extra.result === undefined ? "" : (JSON.stringify(extra.result) ?? "");
    const durationMs = deps.now() - startedAt;
    safeMeasure(() =>
      deps.metrics?.requestEnded({
        installation: instance.slug,
        method: CALL_METHOD[request.kind],
        outcome,
        seconds: durationMs / 1000,
        attempts: attempts(),
      }),
    );
    const findings = request.guardrailFindings?.();
    return safeRecord(deps.calls, {
      userId: deps.member.userId,
      instanceId: instance.instanceId,
      installationId: instance.installationId,
      kind: request.kind,
      target: request.route.target,
      requested: request.requested,
      arguments: request.arguments,
      outcome,
      message: extra.message,
      startedAt: new Date(startedAt).toISOString(),
      durationMs,
      attempts: attempts(),
      resultBytes: Buffer.byteLength(json),
      resultTokens: json === "" ? 0 : estimateTokens(json),
      ...(findings && findings.length > 0 ? { guardrailFindings: findings } : {}),
    });
  };
}

/**
 * A call the proxy refused before forwarding it (governance keeps the tool from this session, a quota, a policy,
 * a wait for approval): recorded as `blocked` with the reason, like a call refused by the instance's status, so
 * the request log shows it, and counted by `cause` for the metrics.
 */
export function recordRefusal(
  deps: Pick<ForwardDeps, "member" | "calls" | "metrics" | "now">,
  request: Pick<ForwardRequest<unknown>, "route" | "kind" | "requested" | "arguments" | "guardrailFindings">,
  reason: string,
  cause: RefusalCause,
): void {
  safeMeasure(() =>
    deps.metrics?.callRefused?.({
      installation: request.route.instance.slug,
      method: CALL_METHOD[request.kind],
      cause,
    }),
  );
  callRecorder(deps, request, deps.now(), () => 0)("blocked", { message: reason });
}

async function redacted(deps: ForwardDeps, instanceId: string, text: string): Promise<string> {
  if (!deps.redactor) return text;
  try {
    return (await deps.redactor(instanceId)).text(text);
  } catch {
    // Secrets we cannot load: say what happened without the upstream's words.
    return "the upstream failed (details withheld)";
  }
}

/** Metrics must never fail the member's call. */
export function safeMeasure(measure: () => void): void {
  try {
    measure();
  } catch {
    // A broken metrics recorder is not the call's problem.
  }
}

function safeRecord(sink: CallSink, entry: CallRecord): void {
  try {
    void Promise.resolve(sink.record(entry)).catch(() => {});
  } catch {
    // A broken call log must never fail the member's call.
  }
}
