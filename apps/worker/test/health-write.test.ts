import { describe, expect, it } from "vitest";
import { healthWrite } from "../src/health-store";

const MIN = 60_000;
const healthy = { consecutiveFailures: 0, degraded: false };

describe("healthWrite (which write a health check needs)", () => {
  it("writes nothing for an unchanged success checked recently, and refreshes the timestamps every N minutes", () => {
    expect(healthWrite({ ...healthy, lastCheckAt: 0 }, healthy, true, 9 * MIN, 10 * MIN)).toBe("none");
    expect(healthWrite({ ...healthy, lastCheckAt: 0 }, healthy, true, 10 * MIN, 10 * MIN)).toBe("touch");
    expect(healthWrite({ ...healthy, lastCheckAt: null }, healthy, true, 0, 10 * MIN)).toBe("touch");
  });

  it("records every failure and every change of the counter or the degraded flag at once", () => {
    expect(
      healthWrite({ ...healthy, lastCheckAt: 0 }, { consecutiveFailures: 1, degraded: false }, false, 1, 10 * MIN),
    ).toBe("record");
    expect(healthWrite({ consecutiveFailures: 3, degraded: true, lastCheckAt: 0 }, healthy, true, 1, 10 * MIN)).toBe(
      "record",
    );
    expect(healthWrite({ consecutiveFailures: 1, degraded: false, lastCheckAt: 0 }, healthy, true, 1, 10 * MIN)).toBe(
      "record",
    );
  });
});
