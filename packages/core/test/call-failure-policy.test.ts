import { describe, expect, it } from "vitest";
import { callFailureApplies } from "../src/policies";

const online = new Date("2026-01-01T00:00:10Z");
const at = (s: number) => new Date(`2026-01-01T00:00:${String(s).padStart(2, "0")}Z`);

describe("callFailureApplies", () => {
  it("takes down an online instance for a call that started on its current connection", () => {
    expect(callFailureApplies({ status: "online", statusChangedAt: online, startedAt: at(11) })).toEqual({
      apply: true,
    });
    expect(callFailureApplies({ status: "online", statusChangedAt: online, startedAt: online }).apply).toBe(true);
  });

  it("ignores a call that started before the instance's last status change (a connection since replaced)", () => {
    expect(callFailureApplies({ status: "online", statusChangedAt: online, startedAt: at(9) })).toEqual({
      apply: false,
      why: "stale",
    });
    expect(callFailureApplies({ status: "error", statusChangedAt: online, startedAt: at(9) }).apply).toBe(false);
  });

  it("leaves a dated report alone while a worker already (re)connects the instance", () => {
    for (const status of ["connecting", "discovering_tools", "syncing_tools", "offline", "error"] as const)
      expect(callFailureApplies({ status, statusChangedAt: online, startedAt: at(11) })).toEqual({
        apply: false,
        why: "not_online",
      });
  });

  it("applies an undated report (the worker's own evidence) in any status that holds a connection", () => {
    expect(callFailureApplies({ status: "connecting", statusChangedAt: online }).apply).toBe(true);
    expect(callFailureApplies({ status: "error", statusChangedAt: null }).apply).toBe(true);
    expect(callFailureApplies({ status: "permanently_failed", statusChangedAt: null, startedAt: at(11) })).toEqual({
      apply: false,
      why: "no_connection",
    });
  });
});
