import { describe, expect, it } from "vitest";
import { csvField, toCsv } from "../src/csv";

describe("CSV", () => {
  it("quotes fields with commas, quotes and line breaks, doubling the quotes", () => {
    expect(csvField('say "hi", then\nleave')).toBe('"say ""hi"", then\nleave"');
    expect(csvField("plain")).toBe("plain");
    expect(csvField(42)).toBe("42");
    expect(csvField(null)).toBe("");
  });

  it("keeps a spreadsheet from running a field as a formula", () => {
    expect(csvField("=HYPERLINK(1)")).toBe("'=HYPERLINK(1)");
    expect(csvField("-2+3,x")).toBe('"\'-2+3,x"');
    expect(csvField(-2)).toBe("-2");
  });

  it("writes a header and one CRLF-terminated line per record", () => {
    const csv = toCsv(
      [
        { header: "name", value: (r: { name: string; n: number }) => r.name },
        { header: "n", value: (r) => r.n },
      ],
      [
        { name: "a,b", n: 1 },
        { name: "c", n: 2 },
      ],
    );
    expect(csv).toBe('name,n\r\n"a,b",1\r\nc,2\r\n');
  });
});
