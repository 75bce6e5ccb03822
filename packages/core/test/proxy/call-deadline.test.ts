import { getEventListeners } from "node:events";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { CallDeadline, requestOptions, type DownstreamExtra } from "../../src/proxy/relay";

const extraOf = (signal: AbortSignal) => ({ signal }) as unknown as DownstreamExtra;

describe("CallDeadline", () => {
  it("aborts with the caller's signal, for the caller's reason, and is the upstream request's one signal", () => {
    const caller = new AbortController();
    const deadline = new CallDeadline(60_000, caller.signal);
    const options = requestOptions(deadline, extraOf(caller.signal));
    expect(options.signal).toBe(deadline.signal);
    caller.abort(new Error("client cancelled"));
    expect(deadline.signal.aborted).toBe(true);
    expect((deadline.signal.reason as Error).message).toBe("client cancelled");
    deadline.dispose();
  });

  it("times out with the SDK's RequestTimeout while the caller waits, and lets go of the caller's signal when disposed", async () => {
    const caller = new AbortController();
    const deadline = new CallDeadline(5, caller.signal);
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(1);
    await new Promise((resolve) => deadline.signal.addEventListener("abort", resolve));
    expect(deadline.signal.reason).toBeInstanceOf(McpError);
    expect((deadline.signal.reason as McpError).code).toBe(ErrorCode.RequestTimeout);
    expect(caller.signal.aborted).toBe(false);
    deadline.dispose();
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
  });

  it("starts aborted for a caller that already gave up, and combines signals it does not follow", () => {
    const gone = new AbortController();
    gone.abort(new Error("gone"));
    const deadline = new CallDeadline(60_000, gone.signal);
    expect((deadline.signal.reason as Error).message).toBe("gone");
    deadline.dispose();

    const other = new AbortController();
    const unlinked = new CallDeadline(60_000);
    const options = requestOptions(unlinked, extraOf(other.signal));
    expect(options.signal).not.toBe(unlinked.signal);
    other.abort(new Error("other"));
    expect((options.signal!.reason as Error).message).toBe("other");
    unlinked.dispose();
  });
});
