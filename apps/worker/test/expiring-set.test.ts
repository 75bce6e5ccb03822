import { describe, expect, it } from "vitest";
import { ExpiringSet } from "../src/expiring-set";

describe("an expiring set (the health probe's memory of servers without ping)", () => {
  it("forgets a member once its time to live has passed", () => {
    const set = new ExpiringSet({ max: 10, ttlMs: 1_000 });
    set.add("a", 0);
    expect(set.has("a", 999)).toBe(true);
    expect(set.has("a", 1_000)).toBe(false);
    expect(set.size).toBe(0);
  });

  it("holds at most max members, forgetting the oldest addition first", () => {
    const set = new ExpiringSet({ max: 2, ttlMs: 1_000 });
    set.add("a", 0);
    set.add("b", 1);
    set.add("a", 2); // added again: now the youngest
    set.add("c", 3);
    expect(set.size).toBe(2);
    expect(set.has("b", 4)).toBe(false);
    expect(set.has("a", 4)).toBe(true);
    expect(set.has("c", 4)).toBe(true);
  });
});
