import { describe, expect, it } from "vitest";
import { invalidParamsError, invalidParamsMessage } from "../../src/proxy";

describe("invalidParamsMessage", () => {
  it("accepts what the method's schema accepts, and leaves methods without a schema alone", () => {
    expect(invalidParamsMessage({ method: "tools/call", params: { name: "x", arguments: { a: [1] } } })).toBeNull();
    expect(invalidParamsMessage({ method: "tools/list" })).toBeNull();
    expect(invalidParamsMessage({ method: "server/discover", params: { anything: 1 } })).toBeNull();
    expect(invalidParamsMessage({ method: "x/unknown", params: { name: 5 } })).toBeNull();
  });

  it("says in one sentence what is wrong, where in params", () => {
    expect(invalidParamsMessage({ method: "tools/call", params: { name: 5 } })).toBe(
      "Invalid params: name must be a string.",
    );
    expect(invalidParamsMessage({ method: "tools/call" })).toBe("Invalid params: params is required.");
    expect(
      invalidParamsMessage({ method: "completion/complete", params: { ref: 5, argument: { name: "a", value: "" } } }),
    ).toBe("Invalid params: ref does not have any of the accepted shapes.");
    expect(invalidParamsMessage({ method: "tools/call", params: { name: "x", _meta: { progressToken: {} } } })).toBe(
      "Invalid params: _meta.progressToken does not have any of the accepted shapes.",
    );
  });

  it("answers with the request's id, or null when it has none a client could match", () => {
    expect(invalidParamsError({ id: 4, method: "resources/read", params: {} })).toEqual({
      jsonrpc: "2.0",
      id: 4,
      error: { code: -32602, message: "Invalid params: uri is required." },
    });
    expect(invalidParamsError({ id: 1.5, method: "resources/read", params: {} })?.id).toBeNull();
  });
});
