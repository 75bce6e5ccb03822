/**
 * The JSON body of an answer whose result holds a list that does not change once made (a member's tool list:
 * one array per catalogue snapshot, see the router). Its JSON text is made and encoded once, on the first answer
 * that carries it, and the bytes are reused by every later answer: for 1,000 tools, JSON.stringify and UTF-8
 * encoding of ~250 KB were most of what a tools/list cost the gateway. The body is byte for byte what
 * JSON.stringify of the whole message gives.
 */

const listBytes = new WeakMap<object, Buffer | null>();

/** Marks `list` as never changed from now on: answers carrying it reuse its encoded JSON. */
export function reusableList<T extends readonly unknown[]>(list: T): T {
  if (!listBytes.has(list)) listBytes.set(list, null);
  return list;
}

function encoded(list: object): Buffer {
  let bytes = listBytes.get(list);
  if (!bytes) {
    bytes = Buffer.from(JSON.stringify(list));
    listBytes.set(list, bytes);
  }
  return bytes;
}

/** The result members a list answer keeps its items in. */
const LIST_KEYS = ["tools", "prompts", "resources", "resourceTemplates"] as const;

const isReusable = (value: unknown): value is object =>
  typeof value === "object" && value !== null && listBytes.has(value);

/**
 * `JSON.stringify(message)`, as a string, or as bytes when its result holds a reusable list. Messages are plain
 * JSON data (no `toJSON`, functions or symbols); an `undefined` property is left out, as JSON.stringify does.
 */
export function messageBody(message: unknown): string | Buffer {
  const result = (message as { result?: unknown } | null)?.result;
  if (typeof result !== "object" || result === null || Array.isArray(result)) return JSON.stringify(message);
  // Only list answers can carry one: every other answer (a call's result, most of the traffic) is not walked.
  if (!LIST_KEYS.some((key) => isReusable((result as Record<string, unknown>)[key]))) return JSON.stringify(message);
  const resultEntries = Object.entries(result).filter(([, v]) => v !== undefined);
  if (!resultEntries.some(([, v]) => isReusable(v))) return JSON.stringify(message);
  const parts: Array<string | Buffer> = ["{"];
  let first = true;
  for (const [key, value] of Object.entries(message as object)) {
    if (value === undefined) continue;
    parts.push(`${first ? "" : ","}${JSON.stringify(key)}:`);
    first = false;
    if (key !== "result") {
      parts.push(JSON.stringify(value));
      continue;
    }
    parts.push("{");
    resultEntries.forEach(([k, v], i) => {
      parts.push(`${i === 0 ? "" : ","}${JSON.stringify(k)}:`);
      parts.push(isReusable(v) ? encoded(v) : JSON.stringify(v));
    });
    parts.push("}");
  }
  parts.push("}");
  return Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : p)));
}
