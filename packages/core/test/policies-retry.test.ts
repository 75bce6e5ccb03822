import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";

import {
  NonRetryableError,
  RetryExhaustedError,
  RetryFailedError,
  TOOL_CALL_RETRY,
  retryDelay,
  withRetry,
  type RetryInfo,
} from "../src/policies";
import { closedPort } from "./helpers/net";

const refused = () => Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });

afterEach(() => {
  vi.useRealTimers();
});

describe("retryDelay", () => {
  it.each([
    [1, 500],
    [2, 1000],
    [3, null],
    [4, null],
    [0, null],
    [-1, null],
    [1.5, null],
  ])("after attempt %s failed waits %s", (attempt, expected) => {
    expect(retryDelay(attempt)).toBe(expected);
  });

  it("uses three attempts and never schedules the references' unused 2 s wait", () => {
    expect(TOOL_CALL_RETRY.attempts).toBe(3);
    expect(TOOL_CALL_RETRY.delaysMs).toEqual([500, 1000]);
  });
});

describe("withRetry (fake timers)", () => {
  it("returns the first success without waiting", async () => {
    const sleep = vi.fn(async () => {});
    await expect(withRetry(async () => "ok", { sleep })).resolves.toEqual({ value: "ok", attempts: 1 });
    expect(sleep).not.toHaveBeenCalled();
  });

  it("retries at 500 ms and then 1 s after the start of each wait, and succeeds on the third attempt", async () => {
    vi.useFakeTimers();
    const calls: number[] = [];
    const start = Date.now();
    const promise = withRetry(async (attempt) => {
      calls.push(Date.now() - start);
      if (attempt < 3) throw refused();
      return attempt;
    });
    await vi.advanceTimersByTimeAsync(499);
    expect(calls).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual([0, 500]);
    await vi.advanceTimersByTimeAsync(999);
    expect(calls).toEqual([0, 500]);
    await vi.advanceTimersByTimeAsync(1);
    await expect(promise).resolves.toEqual({ value: 3, attempts: 3 });
    expect(calls).toEqual([0, 500, 1500]);
  });

  it("gives up after three retryable failures with the last error, attempt count and classification", async () => {
    vi.useFakeTimers();
    const errors: Error[] = [];
    const promise = withRetry(async () => {
      const e = refused();
      errors.push(e);
      throw e;
    });
    const settled = promise.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1500);
    const err = await settled;
    expect(err).toBeInstanceOf(RetryExhaustedError);
    expect(err).toBeInstanceOf(RetryFailedError);
    const exhausted = err as RetryExhaustedError;
    expect(exhausted.attempts).toBe(3);
    expect(exhausted.cause).toBe(errors[2]);
    expect(exhausted.classification).toMatchObject({ status: "offline", retryable: true });
    expect(errors).toHaveLength(3);
  });

  it("reports each retry before waiting", async () => {
    const infos: RetryInfo[] = [];
    const sleeps: number[] = [];
    await withRetry(
      async (attempt) => {
        if (attempt < 3) throw refused();
        return "ok";
      },
      { sleep: async (ms) => void sleeps.push(ms), onRetry: (info) => infos.push(info) },
    );
    expect(sleeps).toEqual([500, 1000]);
    expect(infos.map((i) => [i.attempt, i.delayMs, i.classification.kind])).toEqual([
      [1, 500, "connection_refused"],
      [2, 1000, "connection_refused"],
    ]);
  });

  it("fails at once on an auth error without waiting", async () => {
    const sleep = vi.fn(async () => {});
    const cause = new StreamableHTTPError(401, "Unauthorized");
    const fn = vi.fn(async () => {
      throw cause;
    });
    const err = await withRetry(fn, { sleep }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NonRetryableError);
    expect(err).toMatchObject({ attempts: 1, cause, classification: { status: "requires_reauth" } });
    expect(fn).toHaveBeenCalledTimes(1);
    expect(sleep).not.toHaveBeenCalled();
  });

  it("rethrows a JSON-RPC tool error untouched and does not retry it", async () => {
    const toolError = new McpError(ErrorCode.InvalidParams, "missing argument 'path'");
    const fn = vi.fn(async () => {
      throw toolError;
    });
    await expect(withRetry(fn, { sleep: async () => {} })).rejects.toBe(toolError);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it("uses an injected classifier", async () => {
    const fn = vi.fn(async () => {
      throw new Error("custom transient");
    });
    const err = await withRetry(fn, {
      sleep: async () => {},
      classify: (e) => ({ status: "offline", retryable: true, kind: "network", message: String(e) }),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryExhaustedError);
    expect(fn).toHaveBeenCalledTimes(3);
  });

  it("honours a custom policy", async () => {
    const sleeps: number[] = [];
    const fn = vi.fn(async () => {
      throw refused();
    });
    await withRetry(fn, { policy: { attempts: 2, delaysMs: [10] }, sleep: async (ms) => void sleeps.push(ms) }).catch(
      () => {},
    );
    expect(fn).toHaveBeenCalledTimes(2);
    expect(sleeps).toEqual([10]);
  });

  it("stops waiting and makes no further attempt when aborted during a wait", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const fn = vi.fn(async () => {
      throw refused();
    });
    const settled = withRetry(fn, { signal: controller.signal }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(100);
    controller.abort(new Error("client went away"));
    const err = await settled;
    expect(err).toMatchObject({ message: "client went away" });
    await vi.advanceTimersByTimeAsync(5000);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it("makes no attempt when the signal is already aborted", async () => {
    const fn = vi.fn(async () => "ok");
    const controller = new AbortController();
    controller.abort();
    await expect(withRetry(fn, { signal: controller.signal })).rejects.toBeDefined();
    expect(fn).not.toHaveBeenCalled();
  });
});

describe("withRetry (real time, real refused port)", () => {
  it("retries a fetch to a closed port three times over at least 1.5 s, then reports it offline", async () => {
    const port = await closedPort();
    const attempts: number[] = [];
    const started = performance.now();
    const err = await withRetry(async (attempt) => {
      attempts.push(attempt);
      return fetch(`http://127.0.0.1:${port}/mcp`);
    }).catch((e: unknown) => e);
    const elapsed = performance.now() - started;

    expect(attempts).toEqual([1, 2, 3]);
    expect(err).toBeInstanceOf(RetryExhaustedError);
    expect((err as RetryExhaustedError).classification).toMatchObject({
      status: "offline",
      kind: "connection_refused",
    });
    // 500 + 1000 ms of waits. Node timers may fire up to ~1 ms early relative to performance.now().
    expect(elapsed).toBeGreaterThanOrEqual(1495);
  });
});
