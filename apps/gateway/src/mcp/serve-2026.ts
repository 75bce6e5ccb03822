import { staleConnection } from "@switchboard/core/events";
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  check2026Post,
  checkParamHeaders,
  request2025,
  logAllowed,
  ErrorCode2026,
  relayableCapabilities,
  Exchange2026,
  Mux2026,
  writeJsonRpcError,
  writeJsonRpcErrors,
  type JsonRpcPost,
  type Request2026,
} from "@switchboard/core/proxy";
import { ErrorCode, McpError, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { traceRequest, type TracedRequest } from "@switchboard/core/telemetry";
import { TASKS_EXTENSION, type InputRetry, type TaskMethod } from "@switchboard/core/upstream";
import { env } from "@switchboard/runtime/env";
import { onMemberEvent } from "@switchboard/runtime/live-events";
import { logger } from "@switchboard/runtime/logger";
import { serveListen } from "./listen";
import { continueElsewhere, listenForHeldCalls, type RelayedRetry } from "./held-calls";
import { REVISION_2026 } from "@switchboard/core/revisions";
import {
  createMemberProxy,
  evictStaleConnection,
  hasTasksExtension,
  SessionScopeError,
  type MemberContext,
  type MemberProxy,
} from "./member-proxy";
import { gatewayProcessId } from "./sessions";
import { retireShared, shareProxy } from "./shared-2026";
import { upstreamPool } from "./upstreams";
import { discovered, answer2026, shape, writeJson } from "./answers-2026";
import { bindingOf, signState, stateTtlMs, taskOwner, unwrapTaskId, verifyState, wrapTaskId } from "./signed-state";

/**
 * MCP 2026-07-28 on the route: every request stands alone. Its `_meta` says who the client is and what it can
 * do; the member's proxy is built for the request from the same catalogue cache, upstream connections and
 * sinks the 2025-11-25 sessions use, answers it, and is dropped. Nothing is kept for a later request, so any
 * gateway process serves any request without sessions in Redis or sticky routing.
 */

/**
 * Upstream connections are shared with the member's 2025 sessions, whose event handlers drop them after a
 * restart. A process that serves only 2026 requests has no session to do that, so it watches the member itself.
 */
const watched = new Map<string, () => void>();
function watchConnections(userId: string): void {
  if (watched.has(userId)) return;
  watched.set(
    userId,
    onMemberEvent(userId, (event) => {
      // As the member's catalogue cache is dropped: the next requests build proxies of their own again.
      retireShared(userId);
      if (staleConnection(event)) void evictStaleConnection(event.instanceId);
    }),
  );
}

/** A call held for its client's input (an `input_required` answered; the retry continues it). */
interface Held {
  exchange: Exchange2026;
  /** What the state was issued for: a retry must come from the same token, for the same request. */
  binding: string;
}
const held = new Map<string, Held>();

/**
 * A retry of a call held in this process: its answers go to the waiting upstream, and `res` gets what comes next
 * (a retry that reached another process comes here through Redis, see ./held-calls).
 */
function continueHeld(retry: RelayedRetry, res: ServerResponse, sse: boolean): void {
  const call = held.get(retry.holdId);
  if (!call || call.binding !== retry.binding || !call.exchange.waiting)
    return writeJsonRpcError(
      res,
      400,
      ErrorCode.InvalidParams,
      "Invalid params: the call this requestState continues is no longer waiting (answered or timed out); send the request again without requestState",
      {},
      retry.id,
    );
  call.exchange.attach(res, retry.id, sse);
  call.exchange.answer(retry.answers);
}

/** Retries of calls held here that reached other processes are relayed here; related notifications stay behind. */
const listenAcrossProcesses = () => listenForHeldCalls((retry, res) => continueHeld(retry, res, false));

/** A retry of a call another gateway process holds: relayed to it, and its answer written here. */
async function continueRelayed(res: ServerResponse, holder: string, retry: RelayedRetry): Promise<void> {
  const refused = (reason: string) =>
    writeJsonRpcError(
      res,
      400,
      ErrorCode.InvalidParams,
      `Invalid params: ${reason}; send the request again without requestState`,
      {},
      retry.id,
    );
  try {
    await listenAcrossProcesses();
  } catch {
    return refused("the gateway process that holds this call could not be reached");
  }
  const reply = await continueElsewhere(holder, retry, stateTtlMs());
  if ("refused" in reply) return refused(reply.refused);
  let message: unknown;
  try {
    message = JSON.parse(reply.body);
  } catch {
    message = undefined;
  }
  // Another process of ours wrote it, but it came through Redis: only a JSON-RPC answer to this request goes out.
  const valid =
    typeof message === "object" &&
    message !== null &&
    (message as { jsonrpc?: unknown }).jsonrpc === "2.0" &&
    (message as { id?: unknown }).id === retry.id;
  if (!valid) return refused("the gateway process that holds this call answered something unreadable");
  res.writeHead(reply.status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(reply.body),
  });
  res.end(reply.body);
}

/**
 * `tasks/get|update|cancel`: forwarded to the instance that owns the task, with the upstream's own task id; the
 * answer as it came, under our task id. Only a client that declares the extension may ask (-32021); an id that
 * is not ours, not the member's, or of an instance no longer on the path is an unknown task (-32602).
 */
async function serveTask(
  res: ServerResponse,
  request: Request2026,
  member: MemberContext,
  built: MemberProxy,
): Promise<void> {
  const { id, method, params } = request.message;
  if (!hasTasksExtension(request.clientCapabilities))
    return writeJsonRpcErrors(res, 400, {
      jsonrpc: "2.0",
      id,
      error: {
        code: ErrorCode2026.MissingRequiredClientCapability,
        message: `Missing required client capability: ${method} needs the ${TASKS_EXTENSION} extension`,
        data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      },
    });
  const wrapped = params?.taskId;
  const owned = typeof wrapped === "string" ? unwrapTaskId(wrapped, taskOwner(member)) : undefined;
  if (!owned || !built.instanceIds.has(owned.instanceId))
    return writeJsonRpcError(res, 400, ErrorCode.InvalidParams, "Invalid params: unknown taskId", {}, id);
  const { _meta: _ours, ...rest } = params ?? {};
  try {
    const client = await (built.own ?? upstreamPool()).get(owned.instanceId);
    const result = await client.taskRequest(
      method as TaskMethod,
      { ...rest, taskId: owned.taskId },
      {
        timeout: env().MCP_CALL_TIMEOUT_MS,
      },
    );
    // A completed task's inline result is the tool's: through the guardrails, as a call's result.
    const shown = await built.proxy.shownTask(
      owned.instanceId,
      "taskId" in result ? { ...result, taskId: wrapped } : result,
    );
    writeJson(res, { jsonrpc: "2.0", id, result: answer2026(method, shown) as never });
  } catch (error) {
    const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
    if (error instanceof McpError && typeof code === "number")
      return writeJson(res, { jsonrpc: "2.0", id, error: { code, message: String(message), data } });
    writeJson(res, {
      jsonrpc: "2.0",
      id,
      error: { code: ErrorCode.InternalError, message: "The server that owns this task could not be reached" },
    });
  }
}

const acceptsSse = (req: IncomingMessage) => /text\/event-stream|\*\/\*/.test(req.headers.accept ?? "");

/** Serves one 2026-07-28 POST (the caller authenticated it and read its body). Never throws for client input. */
export async function serve2026(
  req: IncomingMessage,
  res: ServerResponse,
  post: JsonRpcPost,
  member: MemberContext,
): Promise<void> {
  const check = check2026Post(req.headers, post);
  if (!check.ok) return writeJsonRpcErrors(res, check.status, check.error);
  if ("notification" in check) return void res.writeHead(202).end();
  const request: Request2026 = check.request;
  // One span per request, child of the client's trace context (`_meta`, else headers); none without tracing.
  const traced = traceRequest(request.message, {
    headers: req.headers,
    protocolVersion: req.headers["mcp-protocol-version"] as string | undefined,
    httpVersion: req.httpVersion,
  });
  if (!traced) return serveRequest(req, res, request, member);
  res.once("close", () => traced.end({ httpStatus: res.statusCode }));
  return traced.run(() => serveRequest(req, res, request, member, traced));
}

async function serveRequest(
  req: IncomingMessage,
  res: ServerResponse,
  request: Request2026,
  member: MemberContext,
  traced?: TracedRequest,
): Promise<void> {
  const { id, method, params } = request.message;
  const binding = bindingOf(member, request.message);
  const state = params?.requestState;
  const responses = params?.inputResponses;
  const answers = typeof responses === "object" && responses !== null ? (responses as Record<string, unknown>) : {};
  // The retry of a 2026 upstream's input_required: the client's answers and the upstream's state go to it anew.
  let retry: InputRetry | undefined;
  if (state !== undefined) {
    const verified =
      typeof state === "string" ? verifyState(state, binding) : { refused: "requestState must be a string" };
    if ("refused" in verified)
      return writeJsonRpcError(res, 400, ErrorCode.InvalidParams, `Invalid params: ${verified.refused}`, {}, id);
    if ("upstream" in verified) {
      retry = { inputResponses: answers };
      if (verified.upstream !== undefined) retry.requestState = verified.upstream;
    } else {
      // A retry of a call held for input: its answers go to the waiting upstream, and this POST gets what comes
      // next, from this process or, through Redis, from the one holding the call.
      const retried: RelayedRetry = { holdId: verified.holdId, binding, id, answers };
      if (verified.processId === gatewayProcessId()) return continueHeld(retried, res, acceptsSse(req));
      return continueRelayed(res, verified.processId, retried);
    }
  }
  watchConnections(member.userId);
  // A client that can answer sampling, elicitation or roots gets upstream connections of its own that offer
  // exactly that, for this request; what an upstream asks comes back to it as an input_required result.
  const relayable = relayableCapabilities(request.clientCapabilities as never);
  // A call this request holds may be retried on any process: this one listens before its requestState names it.
  if (relayable)
    await listenAcrossProcesses().catch((err: unknown) =>
      logger.warn({ err }, "cannot continue held calls from other gateway processes; retries must reach this one"),
    );
  let lease: { built: MemberProxy; mux?: Mux2026; release(): Promise<void> };
  try {
    // A 2026 upstream's input_required is the client's to answer, as it came (see passedInputRequired).
    const owner = taskOwner(member);
    const withTasks = hasTasksExtension(request.clientCapabilities);
    const tasks = withTasks
      ? { wrap: (instanceId: string, taskId: string) => wrapTaskId(instanceId, taskId, owner) }
      : undefined;
    const client = request.clientInfo?.name;
    const build = () => createMemberProxy(member, relayable, { retry, tasks }, REVISION_2026, client);
    // A request with nothing of its own (see ./shared-2026) is served by the proxy such requests share; one
    // whose client can be asked things, one that continues a call, and a listen get their own.
    const shared =
      !relayable && !retry && method !== "subscriptions/listen"
        ? await shareProxy(member, { client: client ?? "unknown", tasks: withTasks }, build)
        : undefined;
    if (shared) lease = shared;
    else {
      const built = await build();
      lease = { built, release: built.close };
    }
  } catch (err) {
    if (err instanceof SessionScopeError) return writeJsonRpcError(res, 404, -32600, err.message, {}, id);
    throw err;
  }
  const { built, mux } = lease;
  const { proxy, offers } = built;
  const close = lease.release;
  // A call's Mcp-Param-* headers must say what its arguments say, for the tool as we list it to this member.
  if (method === "tools/call" && typeof params?.name === "string") {
    const tool = await proxy.listedTool(params.name).catch(() => undefined);
    const refused = tool && checkParamHeaders(req.headers, request.message, tool.inputSchema);
    if (refused) {
      await close();
      return writeJsonRpcErrors(res, refused.status, refused.error);
    }
  }
  if (method === "subscriptions/listen") return serveListen(req, res, request, member, built, close);
  if (method === "server/discover") {
    writeJson(res, {
      jsonrpc: "2.0",
      id,
      result: answer2026(method, discovered(offers, hasTasksExtension(request.clientCapabilities))) as never,
    });
    return close();
  }
  if (method.startsWith("tasks/")) return serveTask(res, request, member, built).finally(close);
  let holdId: string | undefined;
  const exchange = new Exchange2026(res, id, acceptsSse(req), {
    shape: (message) => {
      traced?.end(message);
      return shape(method, message, (upstream) => signState({ upstream }, binding));
    },
    relay: (message) =>
      message.method !== "notifications/message" ||
      logAllowed((message as { params?: { level?: unknown } }).params?.level, request.logLevel),
    hold: relayable
      ? () => {
          if (!holdId) {
            holdId = randomUUID();
            held.set(holdId, { exchange, binding });
          }
          return signState({ holdId, processId: gatewayProcessId() }, binding);
        }
      : undefined,
  });
  // Our requestState and the answers were taken above; the upstream gets its own in `retry`.
  const { requestState: _state, inputResponses: _answers, ...rest } = request.message.params ?? {};
  const message = request2025({ ...request.message, params: rest });
  const extra = { requestInfo: { headers: req.headers as never } };
  if (mux) {
    void exchange.done.finally(close);
    return mux.dispatch(exchange, message, extra);
  }
  void exchange.done.finally(async () => {
    if (holdId) held.delete(holdId);
    // The answer is written before the SDK's handler has settled: closing at once made the SDK abort the handler's
    // signal, and the upstream got a notifications/cancelled for the call it had just answered (an extra request
    // per call, and most of the CPU the 2026 path cost more than a session). One turn later a handler that has
    // finished is gone, and one that has not (the client went away) is still aborted.
    await new Promise<void>((resolve) => setImmediate(resolve));
    return close();
  });
  await proxy.server.connect(exchange);
  if (relayable)
    exchange.initialize(request.clientCapabilities, request.clientInfo ?? { name: "unknown", version: "0" });
  exchange.dispatch(message as JSONRPCMessage, extra);
}
