import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { classifyError, type ErrorKind } from "../policies/classify-error";
import { BRIDGE_HOLDER_HEADER } from "../contracts/bridge";
import { markNotSent } from "../policies/retry-safety";
import { WorkerHandoverError, WorkerNotAnsweringError } from "../stdio/events";
import { isSignalSafe, markSignalSafe } from "./node-fetch";

/** Failures that mean nothing answered at the bridge's address: the worker behind it is gone. */
const NOT_ANSWERING: ReadonlySet<ErrorKind> = new Set(["connection_refused", "connection_reset"]);

/** A bridge's answer to a request for an instance another worker holds (with the holder in BRIDGE_HOLDER_HEADER). */
const MISDIRECTED = 421;

/**
 * The fetch for a worker's internal bridge, for one connection:
 * - A connection to it refused, reset or closed before an answer fails with WorkerNotAnsweringError (one
 *   sentence, the transport's error as its cause) instead of the socket's text ("connect ECONNREFUSED
 *   127.0.0.1:7410").
 * - A 421 naming the worker that holds the instance (its lease moved since the route looked it up: a worker
 *   died, or stopped the server when idle and another started it) is followed: the request goes to that
 *   worker, and so does every later request of the connection. It was the raw "Error POSTing to endpoint ...
 *   (HTTP 421)" text in front of the client, and an instance marked in error, while a worker failed over.
 * - A 421 naming the bridge it came from (a worker restarted at the address of one that stopped holding the
 *   instance, whose lease has not run out) fails with WorkerHandoverError: one sentence, offline, retryable, and
 *   known not to have reached the server.
 * Every other outcome, an answer or another failure, is base's own.
 */
export function bridgeFetch(base: FetchLike): FetchLike {
  // The bridge that holds the instance, once another one named it.
  let holder: URL | undefined;
  const send: FetchLike = (input, init) =>
    base(holder ? moved(input, holder) : input, init).catch((error: unknown) => {
      throw NOT_ANSWERING.has(classifyError(error).kind) ? new WorkerNotAnsweringError(error) : error;
    });
  const wrapped: FetchLike = async (input, init) => {
    const response = await send(input, init);
    if (response.status !== MISDIRECTED) return response;
    const named = holderOf(response);
    if (!named) return response;
    await response.body?.cancel().catch(() => {});
    // The lease names the bridge that just refused: a worker that stopped there, and one restarted in its place.
    if (named.origin === (holder ?? new URL(String(input))).origin) throw markNotSent(new WorkerHandoverError());
    holder = named;
    return send(input, init);
  };
  return isSignalSafe(base) ? markSignalSafe(wrapped) : wrapped;
}

function holderOf(response: Response): URL | undefined {
  try {
    const url = new URL(response.headers.get(BRIDGE_HOLDER_HEADER) ?? "");
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
}

/** `input` at the holder's origin (the instance's path on every bridge is the same). */
function moved(input: string | URL, holder: URL): URL {
  const url = new URL(String(input));
  url.protocol = holder.protocol;
  url.host = holder.host;
  return url;
}
