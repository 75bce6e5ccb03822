import { ClientRequestSchema, ErrorCode, type JSONRPCErrorResponse } from "@modelcontextprotocol/sdk/types.js";
import { jsonRpcError, usableId } from "./jsonrpc";

/**
 * The params of a client request, checked against the SDK's own schema for its method before the SDK sees them.
 * The SDK's Protocol parses a request with that schema too, but a failure there escapes as `-32603 Internal
 * error` carrying zod's issue list as JSON. Here it is `-32602` with one sentence naming the first problem
 * ("Invalid params: name must be a string."). One mapping for both revisions: the session transport checks what
 * it delivers and the 2026-07-28 check what it dispatches. Methods the SDK has no schema for are not checked.
 */

interface Issue {
  code: string;
  path: PropertyKey[];
  expected?: string;
  values?: unknown[];
  keys?: string[];
  format?: string;
  origin?: string;
}

interface MethodSchema {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: Issue[] } };
}

const SCHEMAS: ReadonlyMap<string, MethodSchema> = new Map(
  ClientRequestSchema.options.map((schema) => [schema.shape.method.value as string, schema as MethodSchema]),
);

/** A key of the client's, fit for a sentence: bounded, printable. */
function shown(key: PropertyKey): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
  const text = String(key).replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

const ARTICLE: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  object: "an object",
  record: "an object",
  array: "an array",
  null: "null",
};

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key as string];
  }
  return value;
}

function describe(issue: Issue, request: unknown): string {
  // Paths start at the request; the client thinks in params.
  const inParams = issue.path[0] === "params" ? issue.path.slice(1) : issue.path;
  const where = inParams.length === 0 ? "params" : inParams.map(shown).join(".");
  switch (issue.code) {
    case "invalid_type":
      if (valueAt(request, issue.path) === undefined) return `${where} is required`;
      return `${where} must be ${ARTICLE[issue.expected ?? ""] ?? `of type ${shown(issue.expected ?? "?")}`}`;
    case "invalid_value": {
      const values = (issue.values ?? []).slice(0, 10).map((v) => JSON.stringify(v));
      return `${where} must be ${values.length === 1 ? values[0] : `one of ${values.join(", ")}`}`;
    }
    case "invalid_union":
      return `${where} does not have any of the accepted shapes`;
    case "unrecognized_keys":
      return `${where} has members it does not accept (${(issue.keys ?? []).slice(0, 5).map(shown).join(", ")})`;
    case "too_small":
      return `${where} is too ${issue.origin === "string" || issue.origin === "array" ? "short" : "small"}`;
    case "too_big":
      return `${where} is too ${issue.origin === "string" || issue.origin === "array" ? "long" : "large"}`;
    case "invalid_format":
      return `${where} must be a valid ${shown(issue.format ?? "value")}`;
    default:
      return `${where} is not valid`;
  }
}

/** One sentence saying what is wrong with a request's params, or null when its method's schema accepts them. */
export function invalidParamsMessage(request: { method: string; params?: unknown }): string | null {
  const schema = SCHEMAS.get(request.method);
  if (!schema) return null;
  const parsed = schema.safeParse(request);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0];
  return `Invalid params: ${issue ? describe(issue, request) : "params are not valid"}.`;
}

/** The `-32602` answer to a request whose params its method's schema refuses, or null. */
export function invalidParamsError(request: {
  id?: unknown;
  method: string;
  params?: unknown;
}): JSONRPCErrorResponse | null {
  const message = invalidParamsMessage(request);
  return message === null ? null : jsonRpcError(usableId(request), ErrorCode.InvalidParams, message);
}
