import type { ServerResponse } from "node:http";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { META, result2026, proxyCapabilities, SERVED_PROTOCOL_VERSIONS } from "@switchboard/core/proxy";
import { TASKS_EXTENSION } from "@switchboard/core/upstream";
import { CATALOGUE_TTL_MS } from "./catalogue-cache";
import { SERVER_INFO } from "./member-proxy";

/**
 * What a 2026-07-28 client gets back: the proxy's 2025-shaped answers reshaped for the stateless revision
 * (the server's identity and a freshness hint in every result, 2026 error codes, `input_required` and tasks
 * passed as their upstream sent them), and `server/discover`'s answer.
 */

/** Resource contents are read from the upstream on every request, so a read is never fresh for long. */
const READ_TTL_MS = 0;
/** 2025-11-25's "resource not found"; 2026-07-28 says -32602 and forbids emitting the old code. */
const RESOURCE_NOT_FOUND_2025 = -32002;

const ttlMs = (method: string) => (method === "resources/read" ? READ_TTL_MS : CATALOGUE_TTL_MS);

/** A result as a 2026 client gets it: with the server's identity and how long it stays fresh. */
export function answer2026(method: string, result: Record<string, unknown>): Record<string, unknown> {
  return result2026(method, result, SERVER_INFO, ttlMs);
}

/** The proxy's answer to a request, as its 2026 client gets it (`wrap` signs an `input_required`'s state). */
export function shape(
  method: string,
  message: JSONRPCMessage & { id: RequestId },
  wrap: (upstreamState: string | undefined) => string,
): JSONRPCMessage {
  if ("result" in message && message.result.resultType === "input_required")
    return { ...message, result: passedInputRequired(message.result, wrap) } as JSONRPCMessage;
  // A task (its id already ours, see passedTask in the proxy): as the upstream answered it, with our identity.
  if ("result" in message && message.result.resultType === "task") {
    const { content, ...task } = message.result;
    const kept = Array.isArray(content) && content.length === 0 ? task : message.result;
    const meta = { ...(kept._meta as Record<string, unknown> | undefined), [META.serverInfo]: SERVER_INFO };
    return { ...message, result: { ...kept, _meta: meta } } as JSONRPCMessage;
  }
  if ("result" in message) return { ...message, result: answer2026(method, message.result) } as JSONRPCMessage;
  if ("error" in message && message.error.code === RESOURCE_NOT_FOUND_2025)
    return { ...message, error: { ...message.error, code: -32602 } };
  return message;
}

/**
 * A 2026 upstream's `input_required`, as its 2026 client gets it: as it came (its `inputRequests` keys are the
 * upstream's, answered on the retry as they are), except that the upstream's `requestState` travels inside ours,
 * signed and bound to this member and request, so it cannot be replayed by another member or for another call.
 */
function passedInputRequired(
  result: Record<string, unknown>,
  wrap: (upstreamState: string | undefined) => string,
): Record<string, unknown> {
  // The 2025 engine's tools/call result check adds an empty `content` the upstream never sent.
  const { content, requestState, ...rest } = result;
  const kept = Array.isArray(content) && content.length === 0 ? rest : { ...rest, content };
  return { ...kept, requestState: wrap(typeof requestState === "string" ? requestState : undefined) };
}

/**
 * What `server/discover` answers: the member's aggregated capabilities on this path, as a session declares them,
 * and the tasks extension when an upstream on the path offers it and the client declared it.
 */
export function discovered(
  offers: { completions: boolean; resourceSubscribe: boolean; tasks: boolean },
  clientTasks: boolean,
): Record<string, unknown> {
  const capabilities: Record<string, unknown> = proxyCapabilities(offers);
  if (offers.tasks && clientTasks) capabilities.extensions = { [TASKS_EXTENSION]: {} };
  return { supportedVersions: SERVED_PROTOCOL_VERSIONS, capabilities };
}

/** A JSON-RPC answer as a plain JSON body (HTTP 200). */
export function writeJson(res: ServerResponse, message: JSONRPCMessage): void {
  const body = JSON.stringify(message);
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}
