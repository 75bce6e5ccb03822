import { describe, expect, it } from "vitest";
import {
  check2026Post,
  decodeMcpHeaderValue,
  is2026Post,
  request2025,
  validateJsonRpcBody,
  type JsonRpcPost,
  type Request2026,
} from "../../src/proxy";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

function postOf(body: unknown): JsonRpcPost {
  const checked = validateJsonRpcBody(body);
  if (!checked.ok) throw new Error("invalid body");
  return checked.post;
}

describe("which revision a POST without a session speaks", () => {
  it("is 2026-07-28 by its _meta or, without one, its header; a handshake-era version or none is 2025", () => {
    const request = (params?: unknown) => postOf({ jsonrpc: "2.0", id: 1, method: "tools/list", params });
    const v = (version: string) => ({ "mcp-protocol-version": version });
    expect(is2026Post({}, request({ _meta: META }))).toBe(true);
    expect(is2026Post(v("2026-07-28"), request())).toBe(true);
    expect(is2026Post(v("v999"), request())).toBe(true);
    expect(is2026Post({}, request({ _meta: { "io.modelcontextprotocol/protocolVersion": 7 } }))).toBe(true);
    expect(is2026Post({}, request())).toBe(false);
    expect(is2026Post(v("2025-11-25"), request())).toBe(false);
    const initialize = postOf({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
    });
    expect(is2026Post({}, initialize)).toBe(false);
  });
});

describe("check2026Post", () => {
  const headers = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "a-b" };
  const call = (name: unknown = "a-b") =>
    postOf({ jsonrpc: "2.0", id: "x", method: "tools/call", params: { name, _meta: META } });
  const code = (check: ReturnType<typeof check2026Post>) => (check.ok ? "ok" : check.error.error.code);

  it("validates _meta first, then the mirrored headers, then the version, then the method", () => {
    const noMeta = postOf({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "a-b" } });
    expect(code(check2026Post({}, noMeta))).toBe(-32602);
    expect(code(check2026Post({ ...headers, "mcp-protocol-version": undefined }, call()))).toBe(-32020);
    expect(code(check2026Post({ ...headers, "mcp-method": "tools/list" }, call()))).toBe(-32020);
    expect(code(check2026Post({ ...headers, "mcp-name": "a-c" }, call()))).toBe(-32020);
    expect(code(check2026Post({ ...headers, "mcp-name": "=?base64?YS1i?=" }, call()))).toBe("ok");
    const removed = postOf({ jsonrpc: "2.0", id: 2, method: "ping", params: { _meta: META } });
    const refused = check2026Post({ ...headers, "mcp-method": "ping" }, removed);
    expect(refused).toMatchObject({ ok: false, status: 404, error: { id: 2, error: { code: -32601 } } });
  });

  it("lists the versions it serves when asked for another, echoing the one asked for", () => {
    const other = postOf({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/list",
      params: { _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "1900-01-01" } },
    });
    const refused = check2026Post({ "mcp-protocol-version": "1900-01-01", "mcp-method": "tools/list" }, other);
    expect(refused).toMatchObject({
      status: 400,
      error: {
        id: 3,
        error: {
          code: -32022,
          data: { requested: "1900-01-01", supported: expect.arrayContaining(["2026-07-28", "2025-11-25"]) },
        },
      },
    });
  });

  it("keeps the revision's own _meta keys at the route and passes trace context on", () => {
    const request = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "t", _meta: { ...META, traceparent: "00-a-b-01", progressToken: 1 } },
    } as Request2026["message"];
    expect(request2025(request).params).toEqual({ name: "t", _meta: { traceparent: "00-a-b-01", progressToken: 1 } });
  });
});

describe("decodeMcpHeaderValue", () => {
  it("decodes the Base64 sentinel form as UTF-8 and refuses what is neither form", () => {
    expect(decodeMcpHeaderValue("plain name")).toBe("plain name");
    expect(decodeMcpHeaderValue(`=?base64?${Buffer.from("Hello, 世界").toString("base64")}?=`)).toBe("Hello, 世界");
    expect(decodeMcpHeaderValue("=?base64?/w==?=")).toBeNull();
    expect(decodeMcpHeaderValue("tab\u0001")).toBeNull();
  });
});
