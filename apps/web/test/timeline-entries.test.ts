import { describe, expect, it } from "vitest";
import { collapseRetries, describeRetries, type TimelineEvent } from "~/components/console/timeline-entries";

/** The readable sentence core gives "connection refused" (the timeline shows that, not the raw text). */
const REFUSED =
  "Nothing answers at this address (connection refused): check the host and port, and that the server is running.";

let n = 0;
const at = (s: number) => new Date(Date.UTC(2026, 10, 25, 0, 0, s));
const ev = (type: string, payload: Record<string, unknown> = {}): TimelineEvent => ({
  id: `e${++n}`,
  type,
  payload,
  createdAt: at(100 - n),
});

describe("timeline entries", () => {
  it("reads consecutive failed attempts with the same error as one line with the attempt range", () => {
    const events = [
      ev("server_reconnected", { attemptsTaken: 10 }),
      ...[9, 8, 7, 6, 5, 4, 3].map((attempt) =>
        ev("server_reconnecting", { attempt, lastError: "connection refused" }),
      ),
      ev("status_changed", { from: "online", to: "offline" }),
    ];
    const entries = collapseRetries(events);
    expect(entries.map((e) => e.kind)).toEqual(["event", "retries", "event"]);
    const retries = entries[1]!;
    expect(retries.kind === "retries" && describeRetries(retries)).toBe(`Attempts 3–9 failed: ${REFUSED}`);
  });

  it("keeps a single attempt as it is, and starts a new run when the error changes", () => {
    const entries = collapseRetries([
      ev("server_reconnecting", { attempt: 5, lastError: "timeout" }),
      ev("server_reconnecting", { attempt: 4, lastError: "connection refused" }),
      ev("server_reconnecting", { attempt: 3, lastError: "connection refused" }),
    ]);
    expect(entries.map((e) => e.kind)).toEqual(["event", "retries"]);
    expect(entries[1]!.kind === "retries" && describeRetries(entries[1]!)).toBe(`Attempts 3–4 failed: ${REFUSED}`);
  });

  it("leaves the error out where the reader may not see it (a member's view has no lastError)", () => {
    const entries = collapseRetries([
      ev("server_reconnecting", { attempt: 2 }),
      ev("server_reconnecting", { attempt: 1 }),
    ]);
    expect(entries[0]!.kind === "retries" && describeRetries(entries[0]!)).toBe("Attempts 1–2 failed");
  });
});
