/**
 * The 2026-07-28 revision's request headers that mirror values of the body over Streamable HTTP (SEP-2243), as
 * one rule for the gateway that checks them and the upstream client that sends them: how a value is written into
 * a header (`encodeHeaderValue`), read back (`decodeHeaderValue`), which tool arguments a tool asks to be mirrored
 * into `Mcp-Param-{Name}` headers (its input schema's `x-mcp-header` annotations), and whether a request's headers
 * say what its body says.
 */

/** The JSON-RPC error a request whose headers and body disagree is refused with (HTTP 400). */
export const HEADER_MISMATCH = -32020;

/** The header a tool argument annotated with `x-mcp-header: Name` travels in. */
export const MCP_PARAM_HEADER_PREFIX = "mcp-param-";

const SENTINEL_START = "=?base64?";
const SENTINEL_END = "?=";
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** RFC 9110 `token` (`1*tchar`): what a header name, so an `x-mcp-header` value, may be made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** An HTTP field value as the specification encodes it: as is when safe ASCII, else `=?base64?...?=`. */
export function encodeHeaderValue(value: string): string {
  let safe =
    value.length > 0 && value === value.trim() && !(value.startsWith(SENTINEL_START) && value.endsWith(SENTINEL_END));
  for (let i = 0; safe && i < value.length; i++) {
    const c = value.charCodeAt(i);
    safe = c === 9 || (c >= 32 && c <= 126);
  }
  return safe ? value : `${SENTINEL_START}${Buffer.from(value, "utf8").toString("base64")}${SENTINEL_END}`;
}

/**
 * An `Mcp-Name` / `Mcp-Param-*` value as sent: plain visible ASCII, or the Base64 sentinel form of UTF-8 text
 * (strict Base64: padded, its own alphabet). Null when neither (a malformed value, which the server refuses).
 */
export function decodeHeaderValue(value: string): string | null {
  if (value.startsWith(SENTINEL_START) && value.endsWith(SENTINEL_END) && value.length >= 11) {
    const encoded = value.slice(SENTINEL_START.length, -SENTINEL_END.length);
    if (!BASE64.test(encoded)) return null;
    const bytes = Buffer.from(encoded, "base64");
    const text = bytes.toString("utf8");
    return Buffer.from(text, "utf8").equals(bytes) ? text : null;
  }
  return /^[\x20-\x7e\t]*$/.test(value) ? value : null;
}

/** One tool argument a tool asks to be mirrored: where it is in the arguments, and the header's name part. */
export interface McpParam {
  path: readonly string[];
  name: string;
}

type Schema = Record<string, unknown>;
const isObject = (value: unknown): value is Schema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The arguments a tool's input schema asks to be mirrored into `Mcp-Param-{Name}` headers, or why its annotations
 * are invalid: each `x-mcp-header` a non-empty token, unique ignoring case, on an `integer`, `string` or `boolean`
 * property reachable from the root through `properties` alone.
 */
export function mcpParams(inputSchema: unknown): { params: McpParam[] } | { invalid: string } {
  const params: McpParam[] = [];
  const seen = new Set<string>();
  const walk = (schema: Schema, path: string[]): string | undefined => {
    const properties = schema.properties;
    if (!isObject(properties)) return undefined;
    for (const [key, property] of Object.entries(properties)) {
      if (!isObject(property)) continue;
      const name = property["x-mcp-header"];
      if (name !== undefined) {
        if (typeof name !== "string" || !TOKEN.test(name))
          return `x-mcp-header of ${[...path, key].join(".")} is not a header name`;
        if (seen.has(name.toLowerCase())) return `x-mcp-header ${name} is used twice`;
        if (!["integer", "string", "boolean"].includes(property.type as string))
          return `x-mcp-header ${name} is on a parameter that is not an integer, string or boolean`;
        seen.add(name.toLowerCase());
        params.push({ path: [...path, key], name });
      }
      const nested = walk(property, [...path, key]);
      if (nested) return nested;
    }
    return undefined;
  };
  if (!isObject(inputSchema)) return { params };
  const invalid = walk(inputSchema, []);
  return invalid ? { invalid } : { params };
}

function valueAt(args: unknown, path: readonly string[]): unknown {
  let value = args;
  for (const key of path) value = isObject(value) ? value[key] : undefined;
  return value;
}

/** A body value as its header says it (before encoding); undefined when absent, null or not a mirrored type. */
function headerText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/** The `Mcp-Param-*` headers (lower-case names) a `tools/call` of a tool with this input schema carries. */
export function mcpParamHeaders(inputSchema: unknown, args: unknown): Record<string, string> {
  const found = mcpParams(inputSchema);
  const headers: Record<string, string> = {};
  if ("invalid" in found) return headers;
  for (const { path, name } of found.params) {
    const text = headerText(valueAt(args, path));
    if (text !== undefined) headers[MCP_PARAM_HEADER_PREFIX + name.toLowerCase()] = encodeHeaderValue(text);
  }
  return headers;
}

type Headers = Record<string, string | string[] | undefined>;

/**
 * Whether a `tools/call`'s `Mcp-Param-*` headers say what its arguments say, for a tool with this input schema:
 * undefined when they do, else the one sentence of the `HeaderMismatch` (-32020) error the request is refused
 * with (HTTP 400). A value in the body needs its header; a header needs the same value in the body (an integer
 * compared as a number); a header that is not valid is refused. Headers the tool does not declare are ignored.
 */
export function mcpParamMismatch(headers: Headers, inputSchema: unknown, args: unknown): string | undefined {
  const found = mcpParams(inputSchema);
  if ("invalid" in found) return undefined;
  for (const { path, name } of found.params) {
    const raw = headers[MCP_PARAM_HEADER_PREFIX + name.toLowerCase()];
    const sent = Array.isArray(raw) ? raw.join(", ") : raw;
    const body = valueAt(args, path);
    const header = `Mcp-Param-${name}`;
    if (sent === undefined) {
      if (body === undefined || body === null) continue;
      return `Header mismatch: the ${header} header is required, as the body has a value for it`;
    }
    const value = decodeHeaderValue(sent.trim());
    if (value === null) return `Header mismatch: the ${header} header is malformed`;
    const matches =
      typeof body === "number" ? value.trim() !== "" && Number(value) === body : headerText(body) === value;
    if (!matches)
      return body === undefined || body === null
        ? `Header mismatch: the ${header} header has no value in the body to match`
        : `Header mismatch: ${header} header value '${value}' does not match body value '${String(body)}'`;
  }
  return undefined;
}
