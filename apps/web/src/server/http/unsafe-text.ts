/**
 * Text the console refuses before it reaches a service or the database: a NUL character (PostgreSQL cannot
 * store it in text and answers with an error) and strings that are not well-formed Unicode (a lone surrogate
 * from `"\ud800"` in JSON cannot be encoded as UTF-8). One check over a whole decoded request body, shared by
 * tRPC and the auth endpoints, so no procedure or endpoint has to remember it.
 */

/** Deeper than any form the console sends; bounds the walk below and refuses pathological nesting. */
const MAX_INPUT_DEPTH = 32;

export interface UnsafeText {
  /** Where it was found, as a dotted path (`values.X-Api-Key`, `fields.2.key`); "" for the input itself. */
  path: string;
  reason: "nul" | "invalid_unicode" | "too_deep";
}

/** ES2024's String.prototype.isWellFormed (Node 20+); the repo's TypeScript lib stops at ES2023. */
const isWellFormed = (text: string) => (text as string & { isWellFormed(): boolean }).isWellFormed();

function problem(text: string): UnsafeText["reason"] | null {
  if (text.includes("\u0000")) return "nul";
  if (!isWellFormed(text)) return "invalid_unicode";
  return null;
}

/**
 * The first string (value or object key) in `value` that must be refused, or null. Walks plain objects, arrays,
 * Maps and Sets (what superjson can produce) without recursion, so deep input cannot overflow the stack.
 */
export function findUnsafeText(value: unknown): UnsafeText | null {
  const stack: Array<{ value: unknown; path: string[] }> = [{ value, path: [] }];
  const at = (path: string[]) => path.join(".");
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    if (typeof current === "string") {
      const reason = problem(current);
      if (reason) return { path: at(path), reason };
      continue;
    }
    if (current === null || typeof current !== "object") continue;
    if (path.length >= MAX_INPUT_DEPTH) return { path: at(path), reason: "too_deep" };
    if (Array.isArray(current) || current instanceof Set) {
      let i = 0;
      for (const item of current) stack.push({ value: item, path: [...path, String(i++)] });
    } else if (current instanceof Map) {
      for (const [key, item] of current) {
        stack.push({ value: key, path: [...path, "(key)"] });
        stack.push({ value: item, path: [...path, String(key)] });
      }
    } else {
      for (const [key, item] of Object.entries(current)) {
        const reason = problem(key);
        if (reason) return { path: at(path), reason };
        stack.push({ value: item, path: [...path, key] });
      }
    }
  }
  return null;
}

/** One sentence for the person who sent it. */
export function unsafeTextMessage(found: UnsafeText): string {
  const where = found.path ? ` (in ${found.path.length > 80 ? `${found.path.slice(0, 80)}…` : found.path})` : "";
  if (found.reason === "too_deep") return `The request is nested too deeply${where}; send a simpler value.`;
  if (found.reason === "nul") return `The request contains a NUL character${where}; remove it and try again.`;
  return `The request contains text that is not valid Unicode${where}; retype it and try again.`;
}
