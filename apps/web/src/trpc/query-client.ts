import { defaultShouldDehydrateQuery, QueryClient } from "@tanstack/react-query";
import type { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import superjson from "superjson";

export function makeQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 30_000, retry: shouldRetry },
      dehydrate: {
        serializeData: superjson.serialize,
        shouldDehydrateQuery: (query) => defaultShouldDehydrateQuery(query) || query.state.status === "pending",
      },
      hydrate: { deserializeData: superjson.deserialize },
    },
  });
}

/** Two more tries for a failure that may pass (the network, a 5xx); none for an answer that will not change. */
export function shouldRetry(failureCount: number, err: unknown): boolean {
  return failureCount < 2 && !isClientError(err);
}

/**
 * A 4xx-class tRPC error: asking again gets the same answer (NOT_FOUND for a stale link, FORBIDDEN, a bad
 * input). In the browser the status rides on the error's data (TRPCClientError); in a server component's
 * prefetch the procedure's TRPCError arrives as thrown, with only its code: without reading that too, every stale
 * link waited through two retries (1 s + 2 s) on the server before the page showed its error.
 */
export function isClientError(err: unknown): boolean {
  const e = err as { name?: unknown; data?: { httpStatus?: unknown } } | null | undefined;
  const status =
    typeof e?.data?.httpStatus === "number"
      ? e.data.httpStatus
      : e?.name === "TRPCError"
        ? getHTTPStatusCodeFromError(err as TRPCError)
        : undefined;
  return status !== undefined && status >= 400 && status < 500;
}
