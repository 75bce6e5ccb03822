import { classifyError, isJsonRpcToolError, type ErrorClassification } from "./classify-error";

export interface RetryPolicy {
  /** Total attempts, the first one included. */
  attempts: number;
  /** delaysMs[i] is the wait after attempt i+1 failed. */
  delaysMs: readonly number[];
}

/**
 * Three attempts, waiting 500 ms then 1 s. The references list [500, 1000, 2000] but also stop at three
 * attempts, so their 2 s wait (after the third failure) can never run; we keep three attempts (a client waits
 * about 1.5 s plus the calls before seeing an offline server) and drop the unused wait rather than add a fourth
 * attempt.
 */
export const TOOL_CALL_RETRY: Readonly<RetryPolicy> = Object.freeze({
  attempts: 3,
  delaysMs: Object.freeze([500, 1000]),
});

/** Wait before the next attempt after attempt `attemptJustFailed` (1-based) failed; null when none is left. */
export function retryDelay(attemptJustFailed: number, policy: RetryPolicy = TOOL_CALL_RETRY): number | null {
  if (!Number.isInteger(attemptJustFailed) || attemptJustFailed < 1) return null;
  if (attemptJustFailed >= policy.attempts) return null;
  return policy.delaysMs[attemptJustFailed - 1] ?? policy.delaysMs.at(-1) ?? 0;
}

/** Base for the two ways withRetry gives up; `classification.status` is what the instance should become. */
export class RetryFailedError extends Error {
  constructor(
    message: string,
    override readonly cause: unknown,
    readonly attempts: number,
    readonly classification: ErrorClassification,
  ) {
    super(message, { cause });
  }
}

/** Every attempt failed with a retryable error. */
export class RetryExhaustedError extends RetryFailedError {
  override readonly name = "RetryExhaustedError";
}

/** An attempt failed with an error retrying cannot fix (auth, non-network errors); no further attempt was made. */
export class NonRetryableError extends RetryFailedError {
  override readonly name = "NonRetryableError";
}

export interface RetryInfo {
  attempt: number;
  delayMs: number;
  error: unknown;
  classification: ErrorClassification;
}

export interface WithRetryOptions {
  policy?: RetryPolicy;
  sleep?: (ms: number) => Promise<void>;
  classify?: typeof classifyError;
  signal?: AbortSignal;
  onRetry?: (info: RetryInfo) => void;
}

/** setTimeout-based wait that clears its timer when the signal aborts (no stray timer keeps the process up). */
function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function abortable(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/**
 * Runs `fn` up to `policy.attempts` times. Resolves with the value and the attempt that produced it.
 *
 * - A JSON-RPC tool error (the server answered) is rethrown untouched at once: it is a result, not a failure.
 * - A non-retryable failure throws NonRetryableError at once.
 * - Retryable failures wait `retryDelay(n)` and try again; after the last one, RetryExhaustedError.
 * - An aborted `signal` rejects with its reason, before an attempt or during a wait.
 */
export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  opts: WithRetryOptions = {},
): Promise<{ value: T; attempts: number }> {
  const policy = opts.policy ?? TOOL_CALL_RETRY;
  const sleep = opts.sleep ?? ((ms: number) => defaultSleep(ms, opts.signal));
  const classify = opts.classify ?? classifyError;
  const { signal } = opts;

  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    try {
      return { value: await fn(attempt), attempts: attempt };
    } catch (error) {
      if (isJsonRpcToolError(error)) throw error;
      const classification = classify(error);
      if (!classification.retryable) {
        throw new NonRetryableError(`Not retryable: ${classification.message}`, error, attempt, classification);
      }
      const delayMs = retryDelay(attempt, policy);
      if (delayMs === null) {
        throw new RetryExhaustedError(
          `Failed after ${attempt} attempts: ${classification.message}`,
          error,
          attempt,
          classification,
        );
      }
      opts.onRetry?.({ attempt, delayMs, error, classification });
      await abortable(sleep(delayMs), signal);
    }
  }
}
