/**
 * Checks on a JSON text before it is parsed, for input that must not travel further: nesting deep enough to
 * overflow a recursive walk later (schema checks, JSON.stringify, the database driver), and text PostgreSQL
 * refuses (`\u0000`, and `\uD800`-style escapes of lone UTF-16 surrogates, which `jsonb` and UTF-8 `text`
 * cannot hold). Raw invalid UTF-8 is the byte reader's to catch (`isUtf8`); after that, escapes are the only
 * way such text can arrive.
 *
 * One pass, no allocation. Bodies without `\u` escapes (nearly all) only have their nesting counted, jumping
 * over string contents with indexOf; the rest are read character by character.
 */

/** Deepest nesting of objects and arrays accepted in a request body. */
export const MAX_JSON_DEPTH = 64;

export type JsonTextProblem = "too_deep" | "nul" | "lone_surrogate";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const U = 0x75;

function hex4(text: string, at: number): number {
  if (at + 4 > text.length) return -1;
  let value = 0;
  for (let i = at; i < at + 4; i++) {
    const c = text.charCodeAt(i);
    const digit =
      c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

export function jsonTextProblem(text: string, maxDepth = MAX_JSON_DEPTH): JsonTextProblem | null {
  // A raw NUL is refused by JSON.parse itself; escapes are rare, so most bodies only need their depth counted.
  return text.indexOf("\\u") === -1 ? depthProblem(text, maxDepth) : carefulScan(text, maxDepth);
}

/**
 * Whether a JSON text (or text that may be JSON) nests objects and arrays deeper than `maxDepth`: for bodies whose
 * escapes are checked elsewhere, where only the depth matters before a recursive parser or walker sees them.
 */
export function jsonTooDeep(text: string, maxDepth = MAX_JSON_DEPTH): boolean {
  return depthProblem(text, maxDepth) !== null;
}

/** Nesting depth only, jumping over strings with indexOf (most of a large body is string content). */
function depthProblem(text: string, maxDepth: number): JsonTextProblem | null {
  let depth = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i++);
    if (c === QUOTE) {
      for (;;) {
        const end = text.indexOf('"', i);
        if (end === -1) return null; // Unterminated: JSON.parse refuses it.
        let backslashes = 0;
        for (let b = end - 1; text.charCodeAt(b) === BACKSLASH; b--) backslashes++;
        i = end + 1;
        if ((backslashes & 1) === 0) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return "too_deep";
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return null;
}

/** Character by character, looking into every escape: for bodies that have `\u` escapes. */
function carefulScan(text: string, maxDepth: number): JsonTextProblem | null {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === QUOTE) break;
        if (d === 0) return "nul";
        if (d !== BACKSLASH) continue;
        i++;
        if (text.charCodeAt(i) !== U) continue;
        const code = hex4(text, i + 1);
        if (code === 0) return "nul";
        if (code >= 0xdc00 && code <= 0xdfff) return "lone_surrogate";
        if (code >= 0xd800 && code <= 0xdbff) {
          const low = text.charCodeAt(i + 5) === BACKSLASH && text.charCodeAt(i + 6) === U ? hex4(text, i + 7) : -1;
          if (low < 0xdc00 || low > 0xdfff) return "lone_surrogate";
          i += 10;
          continue;
        }
        // A malformed escape is left to JSON.parse, which refuses it.
        if (code > 0) i += 4;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return "too_deep";
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if (c === 0) {
      return "nul";
    }
  }
  return null;
}

/** One sentence for the client per problem. */
export function jsonTextProblemMessage(problem: JsonTextProblem, maxDepth = MAX_JSON_DEPTH): string {
  switch (problem) {
    case "too_deep":
      return `The JSON nests deeper than ${maxDepth} levels.`;
    case "nul":
      return "The JSON contains a NUL character (\\u0000), which is not accepted.";
    case "lone_surrogate":
      return "The JSON contains an unpaired UTF-16 surrogate escape, which is not valid text.";
  }
}
