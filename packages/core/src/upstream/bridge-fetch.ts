import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { classifyError, type ErrorKind } from "../policies/classify-error";
import { WorkerNotAnsweringError } from "../stdio/events";
import { isSignalSafe, markSignalSafe } from "./node-fetch";

/** Failures that mean nothing answered at the bridge's address: the worker behind it is gone. */
const NOT_ANSWERING: ReadonlySet<ErrorKind> = new Set(["connection_refused", "connection_reset"]);

/**
 * The fetch for a worker's internal bridge: a connection to it refused, reset or closed before an answer fails
 * with WorkerNotAnsweringError (one sentence, the transport's error as its cause) instead of the socket's text
 * ("connect ECONNREFUSED 127.0.0.1:7410"). Every other outcome, an answer or another failure, is base's own.
 */
export function bridgeFetch(base: FetchLike): FetchLike {
  const wrapped: FetchLike = (input, init) =>
    base(input, init).catch((error: unknown) => {
      throw NOT_ANSWERING.has(classifyError(error).kind) ? new WorkerNotAnsweringError(error) : error;
    });
  return isSignalSafe(base) ? markSignalSafe(wrapped) : wrapped;
}
