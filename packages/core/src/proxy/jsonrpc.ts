import {
  ErrorCode,
  JSONRPCErrorResponseSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";

/**
 * What a Streamable HTTP POST carries, checked once against the SDK's own message schemas before any of it
 * reaches the SDK's Protocol. The Protocol silently drops a message none of its schemas accepts (a fractional
 * id, array params, an object progress token, an unknown key): the request is never answered and its POST
 * hangs. Anything that passes here is a message the Protocol dispatches; anything else gets a JSON-RPC error
 * carrying the message's id when it has a usable one.
 */

/** Most messages one batch may hold (MCP 2025-06-18 dropped batches; older clients send a handful). */
export const MAX_BATCH_MESSAGES = 100;

export const INVALID_REQUEST = -32600;
/** What LSP and other JSON-RPC servers answer a cancelled request with; JSON-RPC itself defines none. */
export const REQUEST_CANCELLED = -32800;

export type MessageKind = "request" | "notification" | "response";

/** A body that passed validation: hand it to `HttpSessionTransport.handle` as is (it is not checked again). */
export class JsonRpcPost {
  constructor(
    readonly messages: readonly JSONRPCMessage[],
    readonly kinds: readonly MessageKind[],
    readonly batch: boolean,
  ) {}

  /** Ids of the requests in it, in order. */
  requestIds(): RequestId[] {
    const ids: RequestId[] = [];
    for (let i = 0; i < this.messages.length; i++)
      if (this.kinds[i] === "request") ids.push((this.messages[i] as { id: RequestId }).id);
    return ids;
  }

  /** The single request of a one-message POST, if that is what it is. */
  onlyRequest(): (JSONRPCMessage & { id: RequestId; method: string; params?: Record<string, unknown> }) | undefined {
    return !this.batch && this.kinds[0] === "request" ? (this.messages[0] as never) : undefined;
  }
}

export type JsonRpcValidation =
  | { ok: true; post: JsonRpcPost }
  /** `body` is the whole HTTP answer: one error, or one per message of a refused batch. */
  | { ok: false; body: JSONRPCErrorResponse | JSONRPCErrorResponse[] };

type Checked = { ok: true; kind: MessageKind; message: JSONRPCMessage } | { ok: false; error: JSONRPCErrorResponse };

/** An id the client can match an error to: what the SDK accepts as a request id. */
export function usableId(message: unknown): RequestId | null {
  if (typeof message !== "object" || message === null) return null;
  const id = (message as { id?: unknown }).id;
  if (typeof id === "string") return id;
  if (typeof id === "number" && Number.isSafeInteger(id)) return id;
  return null;
}

export function jsonRpcError(id: RequestId | null, code: number, message: string): JSONRPCErrorResponse {
  // The SDK's type has no null id; JSON-RPC 2.0 requires null when the request's id could not be read.
  return { jsonrpc: "2.0", id: id as RequestId, error: { code, message } };
}

function checkMessage(value: unknown): Checked {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      ok: false,
      error: jsonRpcError(
        null,
        ErrorCode.InvalidRequest,
        "Invalid Request: each message must be a JSON-RPC 2.0 object",
      ),
    };
  }
  const m = value as Record<string, unknown>;
  const id = usableId(m);
  let kind: MessageKind;
  let schema: {
    safeParse(v: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } };
  };
  if ("method" in m) {
    kind = "id" in m ? "request" : "notification";
    schema = kind === "request" ? JSONRPCRequestSchema : JSONRPCNotificationSchema;
  } else if ("result" in m) {
    kind = "response";
    schema = JSONRPCResultResponseSchema;
  } else if ("error" in m) {
    kind = "response";
    schema = JSONRPCErrorResponseSchema;
  } else {
    return {
      ok: false,
      error: jsonRpcError(
        id,
        ErrorCode.InvalidRequest,
        "Invalid Request: a message needs a method, a result or an error",
      ),
    };
  }
  const parsed = schema.safeParse(m);
  if (parsed.success) return { ok: true, kind, message: m as JSONRPCMessage };
  const issue = parsed.error!.issues[0]!;
  if (
    issue.path[0] === "params" &&
    m.jsonrpc === "2.0" &&
    typeof m.method === "string" &&
    (kind === "notification" || id !== null)
  ) {
    const where = issue.path.map(String).join(".");
    return {
      ok: false,
      error: jsonRpcError(id, ErrorCode.InvalidParams, `Invalid params: ${where}: ${issue.message}`),
    };
  }
  return { ok: false, error: jsonRpcError(id, ErrorCode.InvalidRequest, invalidRequestMessage(m, issue.path)) };
}

function invalidRequestMessage(m: Record<string, unknown>, path: PropertyKey[]): string {
  if (m.jsonrpc !== "2.0") return 'Invalid Request: "jsonrpc" must be "2.0"';
  const field = String(path[0] ?? "");
  if (field === "id") return "Invalid Request: the id must be a string or an integer";
  if (field === "method") return "Invalid Request: the method must be a string";
  if (path.length === 0) return "Invalid Request: the message has members JSON-RPC 2.0 does not define";
  return `Invalid Request: ${path.map(String).join(".")} is invalid`;
}

/** Checks a parsed POST body: one message or a batch of them. */
export function validateJsonRpcBody(body: unknown): JsonRpcValidation {
  if (!Array.isArray(body)) {
    const checked = checkMessage(body);
    if (!checked.ok) return { ok: false, body: checked.error };
    return { ok: true, post: new JsonRpcPost([checked.message], [checked.kind], false) };
  }
  if (body.length === 0)
    return { ok: false, body: jsonRpcError(null, ErrorCode.InvalidRequest, "Invalid Request: the batch is empty") };
  if (body.length > MAX_BATCH_MESSAGES) {
    return {
      ok: false,
      body: jsonRpcError(
        null,
        ErrorCode.InvalidRequest,
        `Invalid Request: a batch may hold at most ${MAX_BATCH_MESSAGES} messages`,
      ),
    };
  }
  const checks = body.map(checkMessage);
  const seen = new Set<RequestId>();
  const duplicate = checks.findIndex((c) => {
    if (!c.ok || c.kind !== "request") return false;
    const id = (c.message as { id: RequestId }).id;
    if (seen.has(id)) return true;
    seen.add(id);
    return false;
  });
  const firstBad = checks.findIndex((c) => !c.ok);
  if (firstBad === -1 && duplicate === -1) {
    return {
      ok: true,
      post: new JsonRpcPost(
        checks.map((c) => (c as { message: JSONRPCMessage }).message),
        checks.map((c) => (c as { kind: MessageKind }).kind),
        true,
      ),
    };
  }
  // Nothing of a refused batch runs; every request in it gets an answer saying why.
  const culprit = firstBad === -1 ? duplicate : firstBad;
  const reason =
    firstBad === -1
      ? `message ${duplicate + 1} reuses the id of an earlier request in the batch`
      : `message ${firstBad + 1} is invalid`;
  const errors: JSONRPCErrorResponse[] = [];
  checks.forEach((c, i) => {
    if (!c.ok) errors.push(c.error);
    else if (i === culprit) errors.push(jsonRpcError(null, ErrorCode.InvalidRequest, `Invalid Request: ${reason}`));
    else if (c.kind === "request") {
      errors.push(
        jsonRpcError(
          (c.message as { id: RequestId }).id,
          ErrorCode.InvalidRequest,
          `Invalid Request: the batch was not processed because ${reason}`,
        ),
      );
    }
  });
  return { ok: false, body: errors };
}
