import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";

/**
 * Whether a failed request can have reached the upstream. `not_sent`: provably not (no connection could be
 * made, or it broke before the request was completely written, so the server cannot have a whole request to
 * run); `maybe_sent`: anything else (a timeout, a connection closed or reset after the request was written).
 */
export type Delivery = "not_sent" | "maybe_sent";

/**
 * Error codes that come only from establishing a connection: the request never left. ECONNRESET and plain
 * timeouts are not here: they happen after a request was written as well.
 */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** Set by the HTTP client on an error that happened before the request was completely written (core nodeFetch). */
export const REQUEST_NOT_SENT = "requestNotSent";

/** Marks an error as having happened before its request was completely written. */
export function markNotSent<E>(error: E): E {
  if (typeof error === "object" && error !== null) {
    try {
      Object.defineProperty(error, REQUEST_NOT_SENT, { value: true, enumerable: false, configurable: true });
    } catch {
      // A frozen error stays unmarked: it counts as possibly sent, the safe side.
    }
  }
  return error;
}

/** What the error says about delivery: its code or the not-sent mark anywhere on its cause chain. */
export function requestDelivery(error: unknown): Delivery {
  const seen = new Set<unknown>();
  for (
    let link = error;
    link !== undefined && link !== null && typeof link === "object" && !seen.has(link) && seen.size < 16;
  ) {
    seen.add(link);
    const { code, cause } = link as { code?: unknown; cause?: unknown };
    if ((link as Record<string, unknown>)[REQUEST_NOT_SENT] === true) return "not_sent";
    if (typeof code === "string" && NOT_SENT_CODES.has(code)) return "not_sent";
    link = cause;
  }
  return "maybe_sent";
}

/** Tools that declare running them twice is harmless. Annotations are hints of the server's, trusted as such. */
export function isRepeatableTool(annotations: ToolAnnotations | undefined): boolean {
  return annotations?.readOnlyHint === true || annotations?.idempotentHint === true;
}

export interface RetrySafetyInput {
  delivery: Delivery;
  /** The request may run twice without harm: a read (resources/read, prompts/get) or a read-only / idempotent tool. */
  repeatable: boolean;
  /** The upstream asked the client something during the attempt: it reached the upstream and a person may have answered. */
  askedClient: boolean;
}

export type RetrySafety =
  { retry: true; why: "not_sent" | "repeatable" } | { retry: false; why: "asked_client" | "may_have_run" };

/**
 * Whether a request that failed with a retryable error may be sent again (see the README's table): when it
 * provably did not reach the upstream, or when running it twice is harmless; never after the upstream asked
 * the client something. Otherwise it fails once, since the upstream may already have run it.
 */
export function retrySafety({ delivery, repeatable, askedClient }: RetrySafetyInput): RetrySafety {
  if (askedClient) return { retry: false, why: "asked_client" };
  if (delivery === "not_sent") return { retry: true, why: "not_sent" };
  if (repeatable) return { retry: true, why: "repeatable" };
  return { retry: false, why: "may_have_run" };
}
