import { REDACTED } from "./secrets";

/**
 * The one place secret values are taken out of text before it is stored, published or logged: status messages,
 * events, the request log, stderr tails and log lines all go through a `Redactor` built from the secret values
 * in scope (an instance's team-tier and member-tier secret fields, its OAuth tokens, the installation's OAuth
 * client secret).
 *
 * Besides the value itself it finds the forms a value takes on its way through an upstream and back: JSON-escaped
 * (once and twice, so a secret with a newline or a quote inside a JSON body or a log line is found), URL-encoded
 * (`%2F`, and `+` for spaces as forms do), base64 and base64url (a credential an upstream echoes from an
 * Authorization header it decoded or built), and each line of a multi-line secret on its own (a PEM key or a
 * service-account JSON printed to stderr line by line, or cut by a bounded tail). For an Authorization-style
 * value ("Bearer x", "Basic base64(user:pass)") the credential alone is a secret too, and for Basic the decoded
 * "user:pass" and the password. We never build Basic headers ourselves: a configured header value is used as is.
 *
 * Short values: a secret shorter than MIN_SECRET_LENGTH characters (after trimming) is NOT searched for in
 * text. Such a value is an ordinary word or number ("admin", "8080", "true"): redacting every occurrence would
 * garble messages and tool arguments while protecting nothing a guess would not find. It stays write-only in
 * the console and under pino's `redact` paths for known secret fields. Lines of a multi-line secret are
 * redacted on their own from MIN_LINE_LENGTH characters (shorter lines are braces and blank lines).
 */
export const MIN_SECRET_LENGTH = 6;
export const MIN_LINE_LENGTH = 8;
/** A cut-off secret at either end of a bounded text is redacted from this many characters. */
export const MIN_FRAGMENT_LENGTH = 8;

const KEY = 4; // every pattern is at least MIN_SECRET_LENGTH (> KEY) long

const jsonEscaped = (s: string) => JSON.stringify(s).slice(1, -1);
const base64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const base64url = (s: string) => Buffer.from(s, "utf8").toString("base64url");

/** Every form of one secret value the redactor looks for (none for a value too short to redact safely). */
export function secretForms(value: string): string[] {
  if (value.trim().length < MIN_SECRET_LENGTH) return [];
  const forms = new Set<string>();
  const addEncodings = (v: string) => {
    forms.add(v);
    const once = jsonEscaped(v);
    forms.add(once);
    forms.add(jsonEscaped(once));
    const url = encodeURIComponent(v);
    forms.add(url);
    forms.add(url.replace(/%20/g, "+"));
  };
  addEncodings(value);
  forms.add(base64(value));
  forms.add(base64(value).replace(/=+$/, ""));
  forms.add(base64url(value));
  // An Authorization-style value: the credential after its scheme is what an upstream quotes back
  // ("invalid token ya29..."); for Basic, also the decoded "user:pass" and the password alone.
  const scheme = /^(Bearer|Basic|Token|Bot|Digest)\s+(\S+)$/i.exec(value.trim());
  if (scheme) {
    const credential = scheme[2]!;
    for (const f of secretForms(credential)) forms.add(f);
    if (scheme[1]!.toLowerCase() === "basic") {
      const decoded = Buffer.from(credential, "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      if (colon > 0 && Buffer.from(decoded, "utf8").toString("base64").replace(/=+$/, "") === credential.replace(/=+$/, "")) {
        for (const f of [...secretForms(decoded), ...secretForms(decoded.slice(colon + 1))]) forms.add(f);
      }
    }
  }
  const lines = value.split(/\r\n|\r|\n/);
  if (lines.length > 1) {
    for (const line of lines) {
      const trimmed = line.trim();
      if (trimmed.length >= MIN_LINE_LENGTH) addEncodings(trimmed);
    }
  }
  return [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH);
}

/** Replaces secret values (in every form `secretForms` lists) by "[redacted]" in strings and JSON values. */
export class Redactor {
  static readonly none = new Redactor([]);

  /** Patterns by their first KEY characters, longest first: one scan of a text, whatever the number of secrets. */
  private readonly index = new Map<string, string[]>();
  private readonly patterns: string[];

  private constructor(patterns: Iterable<string>) {
    this.patterns = [...new Set(patterns)].sort((a, b) => b.length - a.length);
    for (const p of this.patterns) {
      const key = p.slice(0, KEY);
      const list = this.index.get(key);
      if (list) list.push(p);
      else this.index.set(key, [p]);
    }
  }

  /** A redactor for these secret values (empty and short ones are skipped, see MIN_SECRET_LENGTH). */
  static of(secretValues: Iterable<string>): Redactor {
    const patterns: string[] = [];
    for (const v of secretValues) patterns.push(...secretForms(v));
    return patterns.length === 0 ? Redactor.none : new Redactor(patterns);
  }

  /** One redactor for several scopes (the log stream of a process that serves many instances). */
  static merge(redactors: Iterable<Redactor>): Redactor {
    const patterns: string[] = [];
    for (const r of redactors) patterns.push(...r.patterns);
    return patterns.length === 0 ? Redactor.none : new Redactor(patterns);
  }

  get isEmpty(): boolean {
    return this.patterns.length === 0;
  }

  /**
   * The text with every occurrence of a secret replaced. `bounded`: the text was cut from something longer
   * (a stderr tail, a truncated body), so a secret cut in half at its start or end is redacted too.
   */
  text(s: string, opts: { bounded?: boolean } = {}): string {
    if (this.patterns.length === 0 || s.length < MIN_SECRET_LENGTH) return s;
    let out = "";
    let last = 0;
    for (let i = 0; i + MIN_SECRET_LENGTH <= s.length; ) {
      const candidates = this.index.get(s.slice(i, i + KEY));
      const hit = candidates?.find((p) => s.startsWith(p, i));
      if (hit) {
        out += s.slice(last, i) + REDACTED;
        i += hit.length;
        last = i;
      } else i++;
    }
    const whole = last === 0 ? s : out + s.slice(last);
    return opts.bounded ? this.edges(whole) : whole;
  }

  /** A deep copy of a JSON-like value with every string (and object key) redacted. */
  value<T>(v: T): T {
    if (this.patterns.length === 0) return v;
    const walk = (x: unknown): unknown => {
      if (typeof x === "string") return this.text(x);
      if (Array.isArray(x)) return x.map(walk);
      if (x !== null && typeof x === "object" && !(x instanceof Date)) {
        return Object.fromEntries(Object.entries(x).map(([k, val]) => [this.text(k), walk(val)]));
      }
      return x;
    };
    return walk(v) as T;
  }

  /** A secret's tail at the start of the text, or its head at the end (the rest was cut off). */
  private edges(s: string): string {
    let start = 0;
    let end = s.length;
    for (const p of this.patterns) {
      // Head of p at the end of s: p[0..k) === s[len-k..len) for some k in [MIN_FRAGMENT_LENGTH, p.length).
      const head = p.slice(0, MIN_FRAGMENT_LENGTH);
      for (let i = s.indexOf(head, Math.max(0, s.length - p.length + 1)); i !== -1 && i <= s.length - MIN_FRAGMENT_LENGTH; i = s.indexOf(head, i + 1)) {
        if (p.startsWith(s.slice(i))) {
          end = Math.min(end, i);
          break;
        }
      }
      // Tail of p at the start of s.
      const tail = p.slice(-MIN_FRAGMENT_LENGTH);
      const limit = Math.min(s.length, p.length - 1);
      for (let j = s.lastIndexOf(tail, limit - MIN_FRAGMENT_LENGTH); j !== -1; j = j === 0 ? -1 : s.lastIndexOf(tail, j - 1)) {
        const k = j + MIN_FRAGMENT_LENGTH; // s[0..k) may be a tail of p
        if (k < p.length && p.endsWith(s.slice(0, k))) {
          start = Math.max(start, k);
          break;
        }
      }
    }
    if (start === 0 && end === s.length) return s;
    if (start >= end) return REDACTED;
    return (start > 0 ? REDACTED : "") + s.slice(start, end) + (end < s.length ? REDACTED : "");
  }
}

/**
 * The secret values a process knows, by scope (an instance id): the log stream of a process redacts with all
 * of them. Setting a scope again replaces its values (a changed key or a refreshed OAuth token).
 */
export class SecretRegistry {
  private readonly scopes = new Map<string, Redactor>();
  private merged: Redactor | undefined = Redactor.none;

  /** Records a scope's secret values and returns its redactor. */
  set(scope: string, secretValues: Iterable<string>): Redactor {
    const redactor = Redactor.of(secretValues);
    const before = this.scopes.get(scope);
    if (redactor.isEmpty) this.scopes.delete(scope);
    else this.scopes.set(scope, redactor);
    if (before !== undefined || !redactor.isEmpty) this.merged = undefined;
    return redactor;
  }

  forget(scope: string): void {
    if (this.scopes.delete(scope)) this.merged = undefined;
  }

  /** Every known secret at once (rebuilt lazily after a change). */
  all(): Redactor {
    this.merged ??= Redactor.merge(this.scopes.values());
    return this.merged;
  }
}

/**
 * Fields that hold a secret whatever their value (pino `redact` paths, censored before a line is serialised):
 * the first guard of the logs; the Redactor on the log stream is the second, for values inside free text.
 */
export const LOG_REDACT_PATHS: readonly string[] = Object.freeze([
  "*.password",
  "*.token",
  "*.secret",
  "*.authorization",
  "*.cookie",
  "*.accessToken",
  "*.refreshToken",
  "*.clientSecret",
  "*.client_secret",
  "*.headers",
  "*.env",
  "headers.authorization",
  "headers.cookie",
]);

/**
 * A pino destination that redacts each serialised line with the registry's secrets before writing it: the last
 * guard of the logs, whatever a log call passed (an upstream's error message, a stack, a body). Pino writes
 * strings JSON-escaped, which `secretForms` covers.
 */
export function redactingDestination(registry: SecretRegistry, write: (line: string) => void): { write(line: string): void } {
  return { write: (line: string) => write(registry.all().text(line)) };
}
