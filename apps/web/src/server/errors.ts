import { TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server";

/** Domain error codes; mapped once to tRPC codes here, and shown to users through `message`. */
const APP_ERROR_CODES = {
  UNAUTHENTICATED: "UNAUTHORIZED",
  FORBIDDEN: "FORBIDDEN",
  NOT_FOUND: "NOT_FOUND",
  CONFLICT: "CONFLICT",
  INVALID_INPUT: "BAD_REQUEST",
  INVITATION_INVALID: "BAD_REQUEST",
  UPSTREAM_UNAVAILABLE: "SERVICE_UNAVAILABLE",
  INTERNAL: "INTERNAL_SERVER_ERROR",
} as const satisfies Record<string, TRPC_ERROR_CODE_KEY>;

export type AppErrorCode = keyof typeof APP_ERROR_CODES;

export class AppError extends Error {
  override name = "AppError";
  constructor(
    readonly code: AppErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function toTRPCError(err: AppError): TRPCError {
  return new TRPCError({ code: APP_ERROR_CODES[err.code], message: err.message, cause: err });
}

/** Better Auth's APIError carries a status and a body with a message: keep the message, map the status. */
export function fromAuthError(err: unknown, fallback: string): AppError {
  const e = err as { status?: string | number; statusCode?: number; body?: { message?: string; code?: string } };
  const message = e?.body?.message ?? fallback;
  const status = e?.statusCode ?? (typeof e?.status === "number" ? e.status : undefined);
  const named = typeof e?.status === "string" ? e.status : undefined;
  if (status === 401 || named === "UNAUTHORIZED") return new AppError("UNAUTHENTICATED", message, { cause: err });
  if (status === 403 || named === "FORBIDDEN") return new AppError("FORBIDDEN", message, { cause: err });
  if (status === 404 || named === "NOT_FOUND") return new AppError("NOT_FOUND", message, { cause: err });
  if (status === 400 || named === "BAD_REQUEST") return new AppError("INVALID_INPUT", message, { cause: err });
  return new AppError("INTERNAL", fallback, { cause: err });
}
