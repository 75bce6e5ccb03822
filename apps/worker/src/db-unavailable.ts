/** Prisma's codes for "the database is not there right now" (unreachable, timed out, connection closed, pool timeout). */
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
/** What the pg driver adapter reports for the same. */
const ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
/** PostgreSQL itself: shutting down / starting up (57P0x), connection exceptions (08xxx). */
const SQLSTATE = /^(57P0[123]|08...)$/;

/**
 * True when an error means PostgreSQL is unavailable (restarting, network cut), not that the upstream or the
 * data is wrong. Such an error must fail the job so BullMQ retries it with its backoff; it must never be
 * classified as the upstream's failure and written on the instance.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    const { code, meta, cause } = e as {
      code?: unknown;
      meta?: { driverAdapterError?: { cause?: { kind?: unknown; originalCode?: unknown } } };
      cause?: unknown;
    };
    if (typeof code === "string" && PRISMA_CODES.has(code)) return true;
    const adapter = meta?.driverAdapterError?.cause;
    if (typeof adapter?.kind === "string" && ADAPTER_KINDS.has(adapter.kind)) return true;
    if (adapter?.kind === "postgres" && typeof adapter.originalCode === "string" && SQLSTATE.test(adapter.originalCode))
      return true;
    e = cause;
  }
  return false;
}
