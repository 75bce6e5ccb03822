import {
  ErrorCode,
  McpError,
  ResultSchema,
  type RequestId,
  type Result,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { ServerToClientRequest } from "../../upstream";
import type { ProxyContext } from "../context";
import { safeMeasure } from "../forward";
import { DEFAULT_SERVER_REQUEST_TIMEOUT_MS, type DownstreamExtra } from "../relay";
import type { ProxyServer } from "../server-options";
import { canAnswer } from "../session-upstreams";
import { relatedTaskAsOurs } from "./tasks";

/**
 * A request an upstream sent its client (sampling, elicitation, roots), relayed to this session's client: on the
 * response stream of the session's latest call in progress on that instance, or on the session's own stream when
 * none is. The call's clock stops while the client answers.
 */
export function clientRequests(ctx: ProxyContext): ProxyServer["relayServerRequest"] {
  const { options, server } = ctx;
  /** A server-to-client request sent to this session's client, on the stream of `call` when there is one. */
  const relay = async (
    call: DownstreamExtra | undefined,
    request: ServerToClientRequest,
    signal: AbortSignal,
  ): Promise<Result> => {
    const mode = request.method === "elicitation/create" ? (request.params as { mode?: string }).mode : undefined;
    if (!canAnswer(server.getClientCapabilities(), request) || !server.transport) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `The client using this connection cannot answer ${request.method}${mode === "url" ? " (URL mode)" : ""}`,
      );
    }
    const transport = server.transport as { canReach?: (related?: RequestId) => boolean };
    if (transport.canReach?.(call?.requestId) === false) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `The client cannot be reached for ${request.method} right now (no open stream)`,
      );
    }
    return server.request(request as ServerRequest, ResultSchema, {
      signal: call ? AbortSignal.any([signal, call.signal]) : signal,
      timeout: options.serverRequestTimeoutMs ?? DEFAULT_SERVER_REQUEST_TIMEOUT_MS,
      ...(call?.requestId !== undefined ? { relatedRequestId: call.requestId } : {}),
    });
  };
  return async (instanceId, request, { signal }) => {
    const calls = ctx.inflight.get(instanceId);
    const call = calls?.[calls.length - 1];
    // The call's clock stops while the client answers: a person may take a while to fill in a form.
    const release = call?.deadline.hold();
    let outcome: "answered" | "failed" = "failed";
    try {
      const answer = await relay(call?.extra, relatedTaskAsOurs(options.sessionTasks, instanceId, request), signal);
      outcome = "answered";
      return answer;
    } finally {
      release?.();
      safeMeasure(() => options.metrics?.serverRequestRelayed({ method: request.method, outcome }));
    }
  };
}
