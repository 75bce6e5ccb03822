import { encode as encodeCl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { decode, encode } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";

import { countCatalogueTokens, countToolTokens, estimateTokens, TOKEN_SAMPLE_CHARS } from "../src/tokens";

const readFile = {
  name: "read_file",
  description: "Read the complete contents of a file from the file system.",
  inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

describe("token counts", () => {
  it("counts name, description and JSON schema with the o200k_base encoding", () => {
    const text = `read_file\n${readFile.description}\n${JSON.stringify(readFile.inputSchema)}`;
    expect(countToolTokens(readFile)).toBe(encode(text).length);
    expect(decode(encode(text))).toBe(text);
    // Guard against a silent switch of encoding: this text tokenizes differently under cl100k_base.
    const sample = "Ünïcödé ☃ résumé naïve façade 東京 🙂".repeat(3);
    expect(countToolTokens({ name: sample })).toBe(encode(sample).length);
    expect(encodeCl100k(sample).length).not.toBe(encode(sample).length);
  });

  it("grows with the description and the schema", () => {
    const bare = countToolTokens({ name: "read_file" });
    expect(bare).toBeGreaterThan(0);
    expect(countToolTokens({ name: "read_file", description: readFile.description })).toBeGreaterThan(bare);
    expect(countToolTokens(readFile)).toBeGreaterThan(
      countToolTokens({ name: "read_file", description: readFile.description }),
    );
  });

  it("counts special-token markers in a description as text instead of throwing", () => {
    expect(() => countToolTokens({ name: "x", description: "ends with <|endoftext|>" })).not.toThrow();
    expect(countToolTokens({ name: "x", description: "ends with <|endoftext|>" })).toBeGreaterThan(3);
  });

  it("totals a catalogue and keeps per-tool counts in order", () => {
    const tools = [readFile, { name: "ping" }];
    const result = countCatalogueTokens(tools);
    expect(result.perTool.map((t) => t.name)).toEqual(["read_file", "ping"]);
    expect(result.perTool[0]!.tokens).toBe(countToolTokens(readFile));
    expect(result.total).toBe(countToolTokens(readFile) + countToolTokens({ name: "ping" }));
    expect(countCatalogueTokens([])).toEqual({ perTool: [], total: 0 });
  });
});

describe("estimateTokens", () => {
  it("counts a text with the o200k_base encoding, and scales the count of its start past the sample size", () => {
    const short = JSON.stringify({ content: [{ type: "text", text: "hello from the gateway" }] });
    expect(estimateTokens(short)).toBe(encode(short).length);
    const unit = "abc def ghi jkl. ";
    const long = unit.repeat(Math.ceil((3 * TOKEN_SAMPLE_CHARS) / unit.length));
    const sample = encode(long.slice(0, TOKEN_SAMPLE_CHARS)).length;
    expect(estimateTokens(long)).toBe(Math.round((sample * long.length) / TOKEN_SAMPLE_CHARS));
  });
});
