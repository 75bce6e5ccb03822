import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";

/** What a caller may ask of one request on an upstream connection, beyond the SDK's own request options. */
export type CallOptions = Pick<RequestOptions, "onprogress" | "signal" | "timeout" | "resetTimeoutOnProgress"> & {
  /**
   * For a caller that speaks 2026-07-28 itself: a 2026 upstream's `input_required` result (of tools/call,
   * prompts/get, resources/read) is handed back as it came instead of being fulfilled through `onServerRequest`;
   * the caller retries with `inputResponses` and `requestState` in the params. No effect on a 2025 upstream.
   */
  passInputRequired?: boolean;
  /**
   * For a caller that declares the 2026-07-28 tasks extension: the tools/call declares it to a 2026 upstream too,
   * which may then answer with a task (`resultType: "task"`), handed back as it came. No effect on a 2025 upstream.
   */
  passTasks?: boolean;
  /**
   * The called tool's input schema as the catalogue has it: a 2026 upstream over HTTP gets the `Mcp-Param-*`
   * headers its `x-mcp-header` annotations ask for without listing its tools first.
   */
  toolInputSchema?: unknown;
};

/** The retry of a 2026-07-28 request that answered `input_required` (see `CallOptions.passInputRequired`). */
export interface InputRetry {
  inputResponses?: Record<string, unknown>;
  requestState?: string;
}
