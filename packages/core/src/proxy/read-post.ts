import { isUtf8 } from "node:buffer";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { writeJsonRpcError, writeJsonRpcErrors } from "./http-answers";
import { jsonTextProblem, jsonTextProblemMessage } from "./json-text";
import { validateJsonRpcBody, type JsonRpcPost } from "./jsonrpc";

/** Largest JSON-RPC request body accepted (a batch of tool calls with large arguments fits comfortably). */
export const MAX_BODY_BYTES = 1_048_576;

type Body = { ok: true; bytes: Buffer } | { ok: false; status: number; message: string };

function readBody(req: IncomingMessage, maxBytes: number): Promise<Body> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > maxBytes)
    return Promise.resolve({ ok: false, status: 413, message: `Request body exceeds ${maxBytes} bytes` });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > maxBytes) {
        over = true;
        chunks.length = 0;
        resolve({ ok: false, status: 413, message: `Request body exceeds ${maxBytes} bytes` });
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!over) resolve({ ok: true, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) });
    });
    req.on("error", (err) =>
      resolve({ ok: false, status: 400, message: `The request body could not be read: ${err.message}` }),
    );
    // A client that hangs up mid-body may close without an error event: settle anyway (nobody reads the answer).
    req.on("close", () => {
      if (!req.complete) resolve({ ok: false, status: 400, message: "The request body was cut off" });
    });
  });
}

/**
 * The body of a POST, read, checked and parsed once: valid UTF-8, no text PostgreSQL refuses, nesting within
 * bounds, JSON-RPC messages the SDK accepts. Anything else is answered here. The hosted route reads its
 * clients' POSTs with it, the worker's bridge the route's.
 */
export async function readPost(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes = MAX_BODY_BYTES,
): Promise<JsonRpcPost | null> {
  const type = req.headers["content-type"];
  if (type !== undefined && !/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
    writeJsonRpcError(
      res,
      415,
      ErrorCode.InvalidRequest,
      `Unsupported Media Type: the body must be application/json (got ${type})`,
      { connection: "close" },
    );
    return null;
  }
  const read = await readBody(req, maxBytes);
  if (!read.ok) {
    writeJsonRpcError(res, read.status, ErrorCode.InvalidRequest, read.message, { connection: "close" });
    return null;
  }
  if (!isUtf8(read.bytes)) {
    writeJsonRpcError(res, 400, ErrorCode.ParseError, "Parse error: the body is not valid UTF-8");
    return null;
  }
  const text = read.bytes.toString("utf8");
  const problem = jsonTextProblem(text);
  if (problem) {
    writeJsonRpcError(res, 400, ErrorCode.InvalidRequest, `Invalid Request: ${jsonTextProblemMessage(problem)}`);
    return null;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    writeJsonRpcError(res, 400, ErrorCode.ParseError, "Parse error: the body is not valid JSON");
    return null;
  }
  const validation = validateJsonRpcBody(body);
  if (!validation.ok) {
    writeJsonRpcErrors(res, 400, validation.body);
    return null;
  }
  return validation.post;
}
