import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { CallRejectedError } from "../forward";
import { asRelayedError } from "../relay";

/** A forwarded read or prompt that failed, as the JSON-RPC error its client gets (a tool's failure is a result). */
export async function rejectAsMcpError<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof CallRejectedError) {
      throw new McpError(
        error.outcome === "blocked" ? ErrorCode.InvalidRequest : ErrorCode.InternalError,
        error.message,
      );
    }
    throw asRelayedError(error);
  }
}
