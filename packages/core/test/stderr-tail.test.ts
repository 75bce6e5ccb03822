import { describe, expect, it } from "vitest";
import { StderrTail } from "../src/stdio";

describe("StderrTail", () => {
  it("keeps the end of a line longer than the byte limit instead of dropping it", () => {
    const tail = new StderrTail({ maxLines: 50, maxBytes: 100 });
    tail.push("first line\n");
    tail.push(`${"a".repeat(150)}END`);
    const text = tail.text();
    expect(text.endsWith("END")).toBe(true);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(100);
    expect(text).not.toContain("first line");
  });

  it("keeps the last lines within the line and byte limits", () => {
    const tail = new StderrTail({ maxLines: 2, maxBytes: 1000 });
    tail.push("one\ntwo\nthr");
    tail.push("ee\n");
    expect(tail.text()).toBe("two\nthree");
  });
});
