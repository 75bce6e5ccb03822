import { describe, expect, it } from "vitest";
import { actionOutcome, inFlight } from "~/components/console/action-outcome";

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
const seen = (
  status: "online" | "offline" | "connecting" | "provisioning",
  s: number,
  message: string | null = null,
) => ({
  status,
  statusChangedAt: at(s),
  statusMessage: message,
  lastError: null,
});

describe("what a reconnect or restart has done, in one sentence", () => {
  const fromOffline = { verb: "reconnect" as const, baseline: { status: "offline" as const, statusChangedAt: at(0) } };

  it("says the attempt started while the instance has not changed since the action found it", () => {
    expect(actionOutcome(fromOffline, undefined)).toEqual({
      phase: "started",
      text: "Reconnect started: trying to connect now.",
    });
    expect(actionOutcome(fromOffline, seen("offline", 0))).toMatchObject({ phase: "started" });
    expect(inFlight(actionOutcome(fromOffline, seen("offline", 0)))).toBe(true);
  });

  it("follows the attempt, then says back online or still failing with the instance's own reason", () => {
    expect(actionOutcome(fromOffline, seen("connecting", 1))).toEqual({
      phase: "working",
      text: "Attempt under way: Connecting…",
    });
    expect(actionOutcome(fromOffline, seen("online", 2))).toEqual({ phase: "online", text: "Back online." });
    const failing = actionOutcome(fromOffline, seen("offline", 2, "The server answered 503."));
    expect(failing).toEqual({
      phase: "failing",
      text: "Still failing (Offline).",
      message: "The server answered 503.",
      detail: null,
    });
    expect(inFlight(failing)).toBe(false);
  });

  it("says what a reconnect of an online instance did, and what a restart started", () => {
    const fromOnline = { verb: "reconnect" as const, baseline: { status: "online" as const, statusChangedAt: at(0) } };
    expect(actionOutcome(fromOnline, seen("online", 0)).text).toBe(
      "Reconnect started: the connection is closed and opened again.",
    );
    expect(actionOutcome(fromOnline, seen("online", 3)).text).toBe(
      "Reconnected: the connection was opened again; online.",
    );
    const restart = {
      verb: "restart" as const,
      baseline: { status: "permanently_failed" as const, statusChangedAt: at(0) },
    };
    expect(actionOutcome(restart, undefined).text).toBe("Restart started: the server is starting again.");
    expect(actionOutcome(restart, seen("provisioning", 1)).text).toBe("Attempt under way: Provisioning…");
  });
});
