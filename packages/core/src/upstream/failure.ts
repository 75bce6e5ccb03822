import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

/**
 * Whether an error means the session itself is unusable (transport gone, server restarted and forgot our
 * session, request timed out) as opposed to the server answering with a JSON-RPC error. After such a failure
 * the connection is dropped and the next request opens a fresh one.
 */
export function isConnectionFailure(error: unknown): boolean {
  if (error instanceof McpError) {
    return error.code === ErrorCode.ConnectionClosed || error.code === ErrorCode.RequestTimeout;
  }
  return true;
}
