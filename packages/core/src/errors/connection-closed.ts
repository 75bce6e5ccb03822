import { markNotSent } from "../policies/retry-safety";

/** What a request meets when the connection it was given closed before it left (see ConnectionClosedError). */
export const CONNECTION_CLOSED_MESSAGE =
  "The connection to this server was closed before the request was sent (the server was restarted, reconfigured or removed).";

/**
 * The connection was closed (evicted: its process faulted, was restarted or removed, its configuration changed)
 * before this request left: nothing reached the server, so a caller holding a stale reference may send it again
 * on a fresh connection. Classified offline and retryable, marked as not sent; its message is one sentence (it
 * used to name the instance's id: "connection to instance … is closed").
 */
export class ConnectionClosedError extends Error {
  override readonly name = "ConnectionClosedError";
  constructor(readonly instanceId: string) {
    super(CONNECTION_CLOSED_MESSAGE);
    markNotSent(this);
  }
}
