import { describe, expect, it } from "vitest";
import { pageQuery, toPage } from "../src/pagination";

const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `r${i}` }));

describe("cursor pagination", () => {
  it("asks for one row more than the page and continues after the cursor row", () => {
    expect(pageQuery({ limit: 25 })).toEqual({ take: 26 });
    expect(pageQuery({ limit: 25, cursor: null })).toEqual({ take: 26 });
    expect(pageQuery({ limit: 25, cursor: "r24" })).toEqual({ take: 26, cursor: { id: "r24" }, skip: 1 });
  });

  it("gives the next cursor only when the extra row came back", () => {
    expect(toPage(rows(4), 3)).toEqual({ items: rows(3), nextCursor: "r2" });
    expect(toPage(rows(3), 3)).toEqual({ items: rows(3), nextCursor: null });
    expect(toPage([], 3)).toEqual({ items: [], nextCursor: null });
  });
});
