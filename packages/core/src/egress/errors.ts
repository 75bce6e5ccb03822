/**
 * A connection Switchboard refused to open because of the egress policy (a configured URL that points at this
 * host, the cloud metadata service, a private network the operator did not allow, or carries credentials).
 * The message is one sentence for the person who configured the server; `code` lets callers recognise it
 * wherever it ends up on a cause chain.
 */
export class EgressRefusedError extends Error {
  override readonly name = "EgressRefusedError";
  readonly code = "EGRESS_REFUSED";
}

export function isEgressRefused(err: unknown): err is EgressRefusedError {
  return (
    err instanceof EgressRefusedError ||
    (typeof err === "object" && err !== null && (err as { code?: unknown }).code === "EGRESS_REFUSED")
  );
}

/** The egress refusal behind `err`, if one is on its cause chain (the SDK and EventSource wrap what fetch threw). */
export function egressRefusalOf(err: unknown): EgressRefusedError | undefined {
  let current = err;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    if (isEgressRefused(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
