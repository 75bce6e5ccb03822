import { describe, expect, it } from "vitest";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isRevision2026 } from "../src/revisions";
import {
  encodeHeaderValue,
  PROTOCOL_VERSION_META_KEY,
  revisionHeaders,
  withRevisionHeaders,
} from "../src/upstream/revision";

const envelope = { [PROTOCOL_VERSION_META_KEY]: "2026-07-28" };

describe("2026-07-28 request headers", () => {
  it("derives MCP-Protocol-Version, Mcp-Method and Mcp-Name from a request carrying the envelope", () => {
    expect(
      revisionHeaders({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", _meta: envelope } }),
    ).toEqual({ "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo" });
    expect(revisionHeaders({ method: "resources/read", params: { uri: "file:///a b", _meta: envelope } })).toEqual({
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "resources/read",
      "mcp-name": "file:///a b",
    });
    expect(revisionHeaders({ method: "tools/list", params: { _meta: envelope } })).toEqual({
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/list",
    });
  });

  it("adds nothing to a 2025 request (no envelope) or to what is not a request", () => {
    expect(revisionHeaders({ method: "tools/call", params: { name: "echo" } })).toBeUndefined();
    expect(revisionHeaders({ method: "initialize", params: { protocolVersion: "2025-11-25" } })).toBeUndefined();
    expect(revisionHeaders([{ method: "tools/list", params: { _meta: envelope } }])).toBeUndefined();
    expect(revisionHeaders({ id: 1, result: {} })).toBeUndefined();
    expect(revisionHeaders(null)).toBeUndefined();
  });

  it("encodes a name that is not a safe header value as base64 between the specification's markers", () => {
    expect(encodeHeaderValue("echo")).toBe("echo");
    expect(encodeHeaderValue("café")).toBe(`=?base64?${Buffer.from("café").toString("base64")}?=`);
    expect(encodeHeaderValue(" padded")).toBe(`=?base64?${Buffer.from(" padded").toString("base64")}?=`);
    expect(encodeHeaderValue("")).toBe("=?base64??=");
    expect(encodeHeaderValue("line\nbreak")).toMatch(/^=\?base64\?/);
  });

  it("sets the headers on the POST that carries the envelope and leaves other requests untouched", async () => {
    const seen: Headers[] = [];
    const base: FetchLike = async (_url, init) => {
      seen.push(new Headers(init?.headers));
      return new Response("{}");
    };
    const fetch = withRevisionHeaders(base);
    const rev2026 = { jsonrpc: "2.0", id: 1, method: "prompts/get", params: { name: "greet", _meta: envelope } };
    await fetch("http://x/mcp", { method: "POST", headers: { "x-team": "a" }, body: JSON.stringify(rev2026) });
    await fetch("http://x/mcp", { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }) });
    await fetch("http://x/mcp", { method: "GET" });
    expect(seen[0]?.get("mcp-method")).toBe("prompts/get");
    expect(seen[0]?.get("mcp-name")).toBe("greet");
    expect(seen[0]?.get("x-team")).toBe("a");
    expect(seen[1]?.get("mcp-method")).toBeNull();
    expect(seen[2]?.get("mcp-protocol-version")).toBeNull();
  });

  it("tells the stateless revision (and later ones) from session-based ones", () => {
    expect(isRevision2026("2026-07-28")).toBe(true);
    expect(isRevision2026("2025-11-25")).toBe(false);
    expect(isRevision2026(undefined)).toBe(false);
  });
});
