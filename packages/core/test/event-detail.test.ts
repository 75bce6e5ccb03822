import { describe, expect, it } from "vitest";
import { eventPayloadForViewer, MEMBER_FAILURE_MESSAGES, statusMessageForViewer } from "../src/events";

describe("what a plain member sees of events and status messages", () => {
  const member = { admin: false };
  const admin = { admin: true };

  it("drops stderr tails and raw upstream errors for members and keeps them for admins", () => {
    const crashed = { exitCode: 3, signal: null, crashesInWindow: 1, stderrTail: "fatal: /srv/app/key.pem" };
    expect(eventPayloadForViewer("server_crashed", crashed, member)).toEqual({
      exitCode: 3,
      signal: null,
      crashesInWindow: 1,
    });
    expect(eventPayloadForViewer("server_crashed", crashed, admin)).toBe(crashed);
    expect(
      eventPayloadForViewer("discovery_failed", { error: "HTTP 500: <html>", keptCachedTools: true }, member),
    ).toEqual({ keptCachedTools: true });
    expect(
      eventPayloadForViewer(
        "server_reconnecting",
        { attempt: 2, nextRetryMs: 5000, lastError: "ECONNREFUSED" },
        member,
      ),
    ).toEqual({ attempt: 2, nextRetryMs: 5000 });
    expect(eventPayloadForViewer("tools_changed", { added: ["a"], removed: [], changed: [] }, member)).toEqual({
      added: ["a"],
      removed: [],
      changed: [],
    });
  });

  it("replaces a failure status's message with a readable sentence for members only", () => {
    expect(statusMessageForViewer("offline", "fetch failed: ECONNREFUSED 10.0.0.7:443", member)).toBe(
      MEMBER_FAILURE_MESSAGES.offline,
    );
    expect(statusMessageForViewer("offline", "fetch failed: ECONNREFUSED 10.0.0.7:443", admin)).toBe(
      "fetch failed: ECONNREFUSED 10.0.0.7:443",
    );
    expect(statusMessageForViewer("awaiting_user_config", "Waiting for your settings: API_KEY", member)).toBe(
      "Waiting for your settings: API_KEY",
    );
    expect(statusMessageForViewer("error", null, member)).toBeNull();
    expect(
      eventPayloadForViewer("status_changed", { from: "online", to: "error", message: "HTTP 500 <html>" }, member),
    ).toEqual({
      from: "online",
      to: "error",
      message: MEMBER_FAILURE_MESSAGES.error,
    });
  });
});
