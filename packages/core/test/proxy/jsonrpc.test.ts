import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { jsonTextProblem, MAX_JSON_DEPTH, validateJsonRpcBody } from "../../src/proxy";
import { fuzzMessage, nested, seeded } from "../fixtures/jsonrpc-fuzz";

describe("validateJsonRpcBody", () => {
  it("accepts exactly the messages the SDK's Protocol dispatches, over 5,000 generated ones", () => {
    const r = seeded(12);
    let accepted = 0;
    for (let i = 0; i < 5_000; i++) {
      // Through JSON, as the route sees them.
      const message = JSON.parse(JSON.stringify(fuzzMessage(r)) ?? "null");
      const ours = validateJsonRpcBody(message).ok;
      const sdk = JSONRPCMessageSchema.safeParse(message).success && !Array.isArray(message);
      expect(ours, `case ${i}: ${JSON.stringify(message)?.slice(0, 300)}`).toBe(sdk);
      if (ours) accepted++;
    }
    // The corpus is not all refusals.
    expect(accepted).toBeGreaterThan(500);
  });

  it("answers a refused message with its id when the id is one the client can match, and null otherwise", () => {
    const refuse = (body: unknown) => {
      const v = validateJsonRpcBody(body);
      if (v.ok) throw new Error("accepted");
      return v.body;
    };
    expect(refuse({ jsonrpc: "2.0", id: 4, method: "tools/call", params: [] })).toMatchObject({
      id: 4,
      error: { code: -32602 },
    });
    expect(refuse({ jsonrpc: "2.0", id: "q", method: "x", params: { _meta: { progressToken: {} } } })).toMatchObject({
      id: "q",
      error: { code: -32602 },
    });
    expect(refuse({ jsonrpc: "2.0", id: 2.5, method: "ping" })).toMatchObject({ id: null, error: { code: -32600 } });
    expect(refuse({ jsonrpc: "2.0", id: 2 ** 53, method: "ping" })).toMatchObject({
      id: null,
      error: { code: -32600 },
    });
    expect(refuse({ jsonrpc: "1.0", id: 3, method: "ping" })).toMatchObject({ id: 3, error: { code: -32600 } });
    expect(refuse({ jsonrpc: "2.0", id: 3, method: "ping", foo: 1 })).toMatchObject({ id: 3, error: { code: -32600 } });
    expect(refuse(null)).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it("refuses empty, oversized and duplicate-id batches, answering every request of a refused one", () => {
    expect(validateJsonRpcBody([]).ok).toBe(false);
    const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });
    expect(validateJsonRpcBody(Array.from({ length: 101 }, (_, i) => ping(i))).ok).toBe(false);
    expect(validateJsonRpcBody(Array.from({ length: 100 }, (_, i) => ping(i))).ok).toBe(true);
    const dup = validateJsonRpcBody([ping(1), ping(1)]);
    expect(dup.ok).toBe(false);
    const mixed = validateJsonRpcBody([
      ping(1),
      { jsonrpc: "2.0", method: "notifications/initialized" },
      ping(2.5),
      ping(3),
    ]);
    if (mixed.ok) throw new Error("accepted");
    expect((mixed.body as { id: unknown }[]).map((e) => e.id)).toEqual([1, null, 3]);
  });
});

describe("jsonTextProblem", () => {
  it("finds NUL escapes, raw NULs and unpaired surrogate escapes, and lets paired ones and escaped backslashes through", () => {
    expect(jsonTextProblem(String.raw`{"a":"x\u0000"}`)).toBe("nul");
    // A raw NUL is not JSON: JSON.parse refuses it, whichever path the scan took.
    expect(() => JSON.parse('{"a":"x\0"}')).toThrow();
    expect(jsonTextProblem('{"a":"\\u00e9 x\0"}')).toBe("nul");
    expect(jsonTextProblem(String.raw`{"a":"\ud800"}`)).toBe("lone_surrogate");
    expect(jsonTextProblem(String.raw`{"a":"\uDC00x"}`)).toBe("lone_surrogate");
    expect(jsonTextProblem(String.raw`{"a":"\ud800\u0041"}`)).toBe("lone_surrogate");
    expect(jsonTextProblem(String.raw`{"\ud83d\ude00":"\uD83D\uDE00 ok \u00e9"}`)).toBeNull();
    expect(jsonTextProblem(String.raw`{"a":"\\u0000 is fine, it is text"}`)).toBeNull();
    expect(jsonTextProblem(String.raw`{"a":"quote \" then \u0000"}`)).toBe("nul");
    expect(jsonTextProblem(JSON.stringify({ s: "\u{1F600}é" }))).toBeNull();
  });

  it("refuses nesting past the limit and counts brackets inside strings as text, with and without escapes", () => {
    expect(jsonTextProblem(JSON.stringify({ s: 'a \\" [[[ \\\\', t: nested(MAX_JSON_DEPTH - 1) }))).toBeNull();
    expect(jsonTextProblem(JSON.stringify({ s: 'a \\" [[[ \\\\', t: nested(MAX_JSON_DEPTH) }))).toBe("too_deep");
    expect(
      jsonTextProblem(JSON.stringify({ s: "\u00e9 [[[", t: nested(MAX_JSON_DEPTH) }).replace("é", "\\u00e9")),
    ).toBe("too_deep");
    expect(jsonTextProblem(JSON.stringify(nested(MAX_JSON_DEPTH)))).toBeNull();
    expect(jsonTextProblem(JSON.stringify(nested(MAX_JSON_DEPTH + 1)))).toBe("too_deep");
    expect(jsonTextProblem("[".repeat(5_000) + "]".repeat(5_000))).toBe("too_deep");
    expect(jsonTextProblem(JSON.stringify({ s: "[".repeat(10_000) }))).toBeNull();
  });
});
