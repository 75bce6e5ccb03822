import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { describe, expect, it } from "vitest";
import { decodeHeaderValue, mcpParamHeaders, mcpParamMismatch, mcpParams } from "../src/revisions/param-headers";
import { PROTOCOL_VERSION_META_KEY, ToolSchemas, withRevisionHeaders } from "../src/upstream/revision";

/** The input schema of the specification's example tool, with a nested and a boolean annotation added. */
const SCHEMA = {
  type: "object",
  properties: {
    region: { type: "string", "x-mcp-header": "Region" },
    query: { type: "string" },
    options: { type: "object", properties: { limit: { type: "integer", "x-mcp-header": "Limit" } } },
    dry: { type: "boolean", "x-mcp-header": "Dry-Run" },
  },
};
const b64 = (text: string) => `=?base64?${Buffer.from(text).toString("base64")}?=`;

describe("x-mcp-header annotations", () => {
  it("finds the annotated arguments reachable through properties, nested ones included", () => {
    expect(mcpParams(SCHEMA)).toEqual({
      params: [
        { path: ["region"], name: "Region" },
        { path: ["options", "limit"], name: "Limit" },
        { path: ["dry"], name: "Dry-Run" },
      ],
    });
    expect(mcpParams(undefined)).toEqual({ params: [] });
  });

  it("calls a schema invalid whose annotation is not a token, repeats a name ignoring case, or is on a number", () => {
    const schema = (properties: Record<string, unknown>) => mcpParams({ type: "object", properties });
    expect(schema({ a: { type: "string", "x-mcp-header": "Two words" } })).toHaveProperty("invalid");
    expect(schema({ a: { type: "string", "x-mcp-header": "" } })).toHaveProperty("invalid");
    expect(
      schema({ a: { type: "string", "x-mcp-header": "Region" }, b: { type: "string", "x-mcp-header": "region" } }),
    ).toEqual({ invalid: "x-mcp-header region is used twice" });
    expect(schema({ a: { type: "number", "x-mcp-header": "N" } })).toHaveProperty("invalid");
  });
});

describe("Mcp-Param-* headers a call carries", () => {
  it("writes strings, integers and booleans, encodes what is not plain ASCII, and omits absent or null values", () => {
    expect(mcpParamHeaders(SCHEMA, { region: "us-west1", options: { limit: 42 }, dry: false })).toEqual({
      "mcp-param-region": "us-west1",
      "mcp-param-limit": "42",
      "mcp-param-dry-run": "false",
    });
    expect(mcpParamHeaders(SCHEMA, { region: "Hello, 世界", dry: null })).toEqual({
      "mcp-param-region": "=?base64?SGVsbG8sIOS4lueVjA==?=",
    });
    expect(mcpParamHeaders(SCHEMA, { region: "=?base64?literal?=" })).toEqual({
      "mcp-param-region": "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
    });
  });

  it("are set by the upstream fetch for a 2026-07-28 tools/call of a tool whose schema it knows", async () => {
    const seen: Headers[] = [];
    const base: FetchLike = async (_url, init) => {
      seen.push(new Headers(init?.headers));
      return new Response("{}");
    };
    const schemas = new ToolSchemas();
    schemas.remember([{ name: "execute_sql", inputSchema: SCHEMA }], true);
    const fetch = withRevisionHeaders(base, schemas);
    const params = { name: "execute_sql", arguments: { region: " padded " } };
    const body = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { ...params, _meta: {} } };
    body.params._meta = { [PROTOCOL_VERSION_META_KEY]: "2026-07-28" };
    await fetch("http://x/mcp", { method: "POST", body: JSON.stringify(body) });
    expect(seen[0]?.get("mcp-param-region")).toBe(b64(" padded "));
    expect(seen[0]?.get("mcp-name")).toBe("execute_sql");
  });
});

describe("checking a call's Mcp-Param-* headers against its body", () => {
  const check = (headers: Record<string, string>, args: unknown) => mcpParamMismatch(headers, SCHEMA, args);

  it("accepts headers that say what the body says, plain or Base64, an integer compared as a number", () => {
    expect(check({ "mcp-param-region": "us-west1" }, { region: "us-west1" })).toBeUndefined();
    expect(check({ "mcp-param-region": b64("Hello") }, { region: "Hello" })).toBeUndefined();
    expect(check({ "mcp-param-limit": "42.0" }, { options: { limit: 42 } })).toBeUndefined();
    expect(check({ "mcp-param-dry-run": "true" }, { dry: true })).toBeUndefined();
    // What is not in the body needs no header; a header the tool does not declare is not ours to judge.
    expect(check({ "mcp-param-other": "x" }, { query: "q", dry: null })).toBeUndefined();
    // A value only looking like the sentinel is a literal.
    const half = `=?base64?${Buffer.from("Hello").toString("base64")}`;
    expect(check({ "mcp-param-region": half }, { region: half })).toBeUndefined();
  });

  it("refuses a missing, different or malformed header with one sentence", () => {
    expect(check({}, { region: "us-west1" })).toBe(
      "Header mismatch: the Mcp-Param-Region header is required, as the body has a value for it",
    );
    expect(check({ "mcp-param-region": "eu" }, { region: "us-west1" })).toBe(
      "Header mismatch: Mcp-Param-Region header value 'eu' does not match body value 'us-west1'",
    );
    expect(check({ "mcp-param-region": "=?base64?SGVsbG8?=" }, { region: "Hello" })).toBe(
      "Header mismatch: the Mcp-Param-Region header is malformed",
    );
    expect(check({ "mcp-param-region": "=?base64?SGVs!!!bG8=?=" }, { region: "Hello" })).toBe(
      "Header mismatch: the Mcp-Param-Region header is malformed",
    );
    expect(check({ "mcp-param-limit": "7" }, {})).toBe(
      "Header mismatch: the Mcp-Param-Limit header has no value in the body to match",
    );
    expect(check({ "mcp-param-dry-run": "True" }, { dry: true })).toMatch(/does not match/);
  });

  it("decodes only strict Base64 of UTF-8 between the markers", () => {
    expect(decodeHeaderValue(b64("Hello, 世界"))).toBe("Hello, 世界");
    expect(decodeHeaderValue("=?base64?SGVsbG8?=")).toBeNull();
    expect(decodeHeaderValue("=?base64?/w==?=")).toBeNull();
    expect(decodeHeaderValue("=?base64??=")).toBe("");
  });
});
