/**
 * What a database error means, for the code outside packages/db: Prisma's error codes and the driver adapter's
 * shapes are read here and nowhere else (ESLint refuses a Prisma code or the Prisma namespace outside this
 * package).
 */

const code = (error: unknown): unknown =>
  error && typeof error === "object" ? (error as { code?: unknown }).code : undefined;

/** A unique index refused the write (P2002): another writer got there first. */
export function isUniqueViolation(error: unknown): boolean {
  return code(error) === "P2002";
}

/** A foreign key refused the write (P2003): the row it points at is gone (deleted meanwhile). */
export function isMissingReference(error: unknown): boolean {
  return code(error) === "P2003";
}

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
