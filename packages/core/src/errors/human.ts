/**
 * Errors for humans: one short sentence a person understands, and the raw text as bounded, cleaned detail for
 * a disclosure. Every surface that shows an upstream's or a process's failure (status messages, events, the
 * request log, tooltips) goes through `humanizeError`, so an HTML error page or a 30 kB stack trace never
 * becomes the UI. No dependencies: the console's client bundle imports this too.
 */

export interface HumanError {
  /** One or two sentences, at most SUMMARY_MAX characters, no line breaks. */
  summary: string;
  /** The raw text, cleaned and bounded (null when the summary already says everything). */
  detail: string | null;
}

/** Long enough for a readable sentence with its remedy (an egress refusal names the variable to set). */
export const SUMMARY_MAX = 320;
export const DETAIL_MAX = 2000;

const CONTROL =
  // eslint-disable-next-line no-control-regex -- stripping control characters is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function looksLikeHtml(text: string): boolean {
  return /<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>]|<\/(?:div|p|h1|title|body|html)>/i.test(text);
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code =
        name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : " ";
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** An HTML page reduced to its visible words (scripts and styles dropped). */
function htmlToText(html: string): string {
  return decodeEntities(
    html
      .replace(/<(script|style|noscript|svg)[\s\S]*?<\/\1\s*>/gi, " ")
      .replace(/<!--[\s\S]*?-->/g, " ")
      .replace(/<[^>]{0,2000}>/g, " "),
  );
}

function htmlTitle(html: string): string | null {
  const m = /<title[^>]*>([\s\S]{0,400}?)<\/title>/i.exec(html);
  if (!m?.[1]) return null;
  const title = squash(decodeEntities(m[1]));
  return title.length > 0 ? title : null;
}

function squash(text: string): string {
  return text.replace(CONTROL, " ").replace(/\s+/g, " ").trim();
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  // Do not cut a surrogate pair in half.
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/**
 * The raw text as it may be shown behind a disclosure: control and bidi characters removed, an HTML document
 * reduced to its text, at most `max` characters. React escapes it when rendering; nothing here is markup.
 */
export function boundDetail(raw: unknown, max = DETAIL_MAX): string {
  let text = rawText(raw);
  if (looksLikeHtml(text)) text = htmlToText(text);
  text = text
    .replace(CONTROL, (c) => (c === "\n" || c === "\t" ? c : " "))
    .replace(/[ \t]+/g, " ")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return clip(text, max);
}

function rawText(raw: unknown): string {
  if (typeof raw === "string") return raw;
  if (raw instanceof Error) return raw.message || raw.name;
  if (raw === null || raw === undefined) return "";
  try {
    return JSON.stringify(raw) ?? String(raw);
  } catch {
    return String(raw);
  }
}

function httpStatusIn(text: string): number | null {
  const m =
    /\b(?:HTTP(?:\/[\d.]+)?|status(?: code)?|returned|Error POSTing to endpoint)[\s:(]*\(?(\d{3})\b/i.exec(text) ??
    /\((\d{3})\)/.exec(text);
  if (!m?.[1]) return null;
  const code = Number(m[1]);
  return code >= 400 && code < 600 ? code : null;
}

type Rule = { test: (text: string, lower: string) => string | null };

const RULES: Rule[] = [
  {
    // spawn npx ENOENT / spawn /usr/bin/foo ENOENT
    test: (t) => {
      const m = /spawn\s+(\S+)\s+ENOENT/.exec(t) ?? /command not found:?\s*([\w./@-]+)/i.exec(t);
      return m?.[1] ? `Command not found: ${clip(m[1].replace(/\.+$/, ""), 80)}.` : null;
    },
  },
  {
    test: (t) =>
      /spawn\s+\S+\s+EACCES|\bEACCES\b/.test(t) ? "The command could not be run: permission denied." : null,
  },
  {
    test: (_t, l) =>
      l.includes("econnrefused") || l.includes("connection refused")
        ? "Nothing answers at this address (connection refused): check the host and port, and that the server is running."
        : null,
  },
  {
    test: (_t, l) =>
      l.includes("enotfound") || l.includes("eai_again") || l.includes("getaddrinfo")
        ? "The host name could not be found: check the URL."
        : null,
  },
  {
    test: (_t, l) =>
      l.includes("econnreset") || l.includes("socket hang up")
        ? "The server closed the connection unexpectedly."
        : null,
  },
  {
    test: (_t, l) =>
      l.includes("cert") &&
      (l.includes("self-signed") ||
        l.includes("self signed") ||
        l.includes("unable to verify") ||
        l.includes("certificate has expired"))
        ? "The server's TLS certificate is not trusted."
        : null,
  },
  { test: (_t, l) => (/\b(?:etimedout|timed out|timeout)\b/.test(l) ? "The server did not answer in time." : null) },
  {
    test: (_t, l) =>
      l.includes("ehostunreach") || l.includes("enetunreach") ? "The network path to the server is unreachable." : null,
  },
];

const WEB_PAGE = "The server answered with a web page, not MCP";

function byStatus(code: number): string {
  if (code === 401) return "The server asked for credentials (HTTP 401): connect your account or check the API key.";
  if (code === 403) return "The server refused access (HTTP 403): check the credentials and their permissions.";
  if (code === 404) return "Nothing was found at this URL (HTTP 404): check the URL's path.";
  if (code === 405) return "The server does not accept MCP requests at this URL (HTTP 405): check the URL's path.";
  if (code === 429) return "The server is rate-limiting requests (HTTP 429); Switchboard retries later.";
  if (code === 408 || code === 502 || code === 503 || code === 504)
    return `The server is unavailable right now (HTTP ${code}).`;
  if (code >= 500) return `The server failed with an internal error (HTTP ${code}).`;
  return `The server refused the request (HTTP ${code}).`;
}

const NOT_MCP = "The server did not answer as an MCP server: check the URL's path and that it serves MCP.";

/** The first sentence of already-readable text, bounded. */
function firstSentence(text: string): string {
  const line = squash(text.split(/\r?\n/, 1)[0] ?? "");
  if (line.length <= SUMMARY_MAX) return line;
  const sentence = /^(.{20,}?[.!?])(\s|$)/.exec(line)?.[1] ?? line;
  return clip(sentence, SUMMARY_MAX);
}

/**
 * One sentence for a failure, and the raw text as detail. Recognises HTML answers, missing commands
 * (`spawn x ENOENT`), refused connections, DNS failures, timeouts and HTTP statuses; anything else keeps its
 * first line (bounded, single-line). Idempotent: a summary fed back in comes out the same.
 */
export function humanizeError(raw: unknown): HumanError {
  const text = rawText(raw);
  const squashed = squash(text);
  if (squashed.length === 0) return { summary: "Unknown error.", detail: null };
  if (squashed.startsWith(WEB_PAGE) && squashed.length <= SUMMARY_MAX) return { summary: squashed, detail: null };
  const detail = boundDetail(text);
  const ownCode = (raw as { code?: unknown } | null)?.code;
  if (looksLikeHtml(text) || /unexpected content type:\s*text\/html/i.test(squashed)) {
    const code = typeof ownCode === "number" && ownCode >= 400 ? ownCode : httpStatusIn(text.replace(/<[\s\S]*$/, ""));
    const title = htmlTitle(text);
    const suffix = code
      ? ` (HTTP ${code}${title ? `, "${clip(title, 40)}"` : ""})`
      : title
        ? ` ("${clip(title, 40)}")`
        : "";
    return { summary: `${WEB_PAGE}${suffix}: check the URL's path.`, detail };
  }
  const lower = squashed.toLowerCase();
  for (const rule of RULES) {
    const summary = rule.test(squashed, lower);
    if (summary) return { summary, detail: summary === detail ? null : detail };
  }
  const code = typeof ownCode === "number" && ownCode >= 400 && ownCode < 600 ? ownCode : httpStatusIn(squashed);
  if (code) return { summary: byStatus(code), detail };
  // The SDK's wording for an answer it could not read as MCP, followed by whatever the server sent (a login
  // page's text, a proxy's notice): that text is the detail, not a sentence for the status line.
  if (/Error POSTing to endpoint/i.test(squashed)) return { summary: NOT_MCP, detail };
  const summary = firstSentence(text);
  return { summary, detail: summary === detail ? null : detail };
}
