import { ProtocolError, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

/**
 * A JSON-RPC error a 2026-07-28 server answered with an HTTP error status (400 for -32020, -32021, -32022; 404
 * for -32601): the transport throws it as an HTTP failure, but the body is the server's answer to the request.
 */
function answeredError(error: unknown): McpError | undefined {
  if (!(error instanceof StreamableHTTPError) || error.code === undefined || error.code < 400 || error.code >= 500)
    return undefined;
  const body = error.message.slice(error.message.indexOf("{"));
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown; data?: unknown } };
    const { code, message, data } = parsed.error ?? {};
    if (typeof code !== "number" || typeof message !== "string") return undefined;
    return new McpError(code, stripPrefix(message), data);
  } catch {
    return undefined;
  }
}

/** SDK v2's errors as the SDK 1.x `McpError` the rest of core (retry policy, discovery, the proxy) understands. */
export function asLegacyError(error: unknown): unknown {
  const answered = answeredError(error);
  if (answered) return answered;
  if (error instanceof ProtocolError) return new McpError(error.code, stripPrefix(error.message), error.data);
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout)
      return new McpError(ErrorCode.RequestTimeout, stripPrefix(error.message));
    if (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected)
      return new McpError(ErrorCode.ConnectionClosed, stripPrefix(error.message));
    return new McpError(ErrorCode.InternalError, stripPrefix(error.message));
  }
  return error;
}

const stripPrefix = (message: string) => message.replace(/^MCP error -?\d+: /, "");

/** SDK 1.x request options as v2's (the same fields), with `passInputRequired` as v2's manual multi-round-trip mode. */
export function v2(
  options:
    (RequestOptions & { passInputRequired?: boolean; passTasks?: boolean; toolInputSchema?: unknown }) | undefined,
) {
  const { passInputRequired, passTasks: _tasks, toolInputSchema: _schema, ...rest } = options ?? {};
  return (passInputRequired ? { ...rest, allowInputRequired: true } : rest) as never as Record<string, never>;
}
