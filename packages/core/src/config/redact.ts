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
      if (
        colon > 0 &&
        Buffer.from(decoded, "utf8").toString("base64").replace(/=+$/, "") === credential.replace(/=+$/, "")
      ) {
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

const escapeRegExp = (p: string) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A number from `len` characters of `s` at `i` (collisions only cost a comparison). */
function hashAt(s: string, i: number, len: number): number {
  let h = 0;
  for (let k = i; k < i + len; k++) h = (h * 65599 + s.charCodeAt(k)) | 0;
  return h;
}

/**
 * Where a pattern is keyed: a long one by 8 characters from its 9th (past the prefixes secrets of one kind
 * share, "sk-live-", "xoxb-"), a short one by its first 4.
 */
const LONG = { min: 16, at: 8, len: 8 } as const;
const SHORT = { at: 0, len: 4 } as const;

class Buckets {
  readonly map = new Map<number, string[]>();
  constructor(
    readonly at: number,
    readonly len: number,
  ) {}
  add(key: number, p: string) {
    const bucket = this.map.get(key);
    if (!bucket) return void this.map.set(key, [p]);
    // Longest first: insert before the first shorter one (binary search; buckets of shared prefixes grow).
    let lo = 0;
    let hi = bucket.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (bucket[mid]!.length >= p.length) lo = mid + 1;
      else hi = mid;
    }
    bucket.splice(lo, 0, p);
  }
  remove(key: number, p: string) {
    const bucket = this.map.get(key);
    const at = bucket?.indexOf(p) ?? -1;
    if (!bucket || at === -1) return;
    bucket.splice(at, 1);
    if (bucket.length === 0) this.map.delete(key);
  }
  /** The longest pattern that starts at `i` in `s`, if any. */
  match(s: string, i: number): string | undefined {
    if (this.map.size === 0 || i + this.at + this.len > s.length) return undefined;
    const bucket = this.map.get(hashAt(s, i + this.at, this.len));
    if (bucket) for (const p of bucket) if (s.startsWith(p, i)) return p;
    return undefined;
  }
}

/**
 * Many patterns at once (the log stream of a worker that hosts thousands of instances), with reference counts
 * so scopes can be added and removed one at a time. A scan costs two map lookups per character, whatever the
 * number of patterns; a RegExp alternation of tens of thousands of literals takes seconds to compile.
 */
class PatternIndex {
  private readonly long = new Buckets(LONG.at, LONG.len);
  private readonly short = new Buckets(SHORT.at, SHORT.len);
  private readonly counts = new Map<string, number>();

  get size(): number {
    return this.counts.size;
  }

  private bucketOf(p: string): [Buckets, number] {
    const b = p.length >= LONG.min ? this.long : this.short;
    return [b, hashAt(p, b.at, b.len)];
  }

  add(patterns: Iterable<string>): void {
    for (const p of patterns) {
      const n = this.counts.get(p) ?? 0;
      this.counts.set(p, n + 1);
      if (n > 0) continue;
      const [b, key] = this.bucketOf(p);
      b.add(key, p);
    }
  }

  remove(patterns: Iterable<string>): void {
    for (const p of patterns) {
      const n = this.counts.get(p) ?? 0;
      if (n === 0) continue;
      if (n > 1) {
        this.counts.set(p, n - 1);
        continue;
      }
      this.counts.delete(p);
      const [b, key] = this.bucketOf(p);
      b.remove(key, p);
    }
  }

  replace(s: string): string {
    if (this.counts.size === 0 || s.length < MIN_SECRET_LENGTH) return s;
    let out = "";
    let last = 0;
    for (let i = 0; i + MIN_SECRET_LENGTH <= s.length;) {
      const long = this.long.match(s, i);
      const short = this.short.match(s, i);
      const hit = long && short ? (long.length >= short.length ? long : short) : (long ?? short);
      if (hit) {
        out += s.slice(last, i) + REDACTED;
        i += hit.length;
        last = i;
      } else i++;
    }
    return last === 0 ? s : out + s.slice(last);
  }
}

/** Replaces secret values (in every form `secretForms` lists) by "[redacted]" in strings and JSON values. */
export class Redactor {
  static readonly none = new Redactor([]);

  /** Longest first, so a whole secret wins over one of its lines. */
  private readonly patterns: string[];
  /** One instance's handful of patterns: a RegExp alternation of literals (V8 scans these at memory speed). */
  private readonly regex: RegExp | undefined;

  private constructor(patterns: Iterable<string>) {
    this.patterns = [...new Set(patterns)].sort((a, b) => b.length - a.length);
    this.regex = this.patterns.length ? new RegExp(this.patterns.map(escapeRegExp).join("|"), "g") : undefined;
  }

  /** A redactor for these secret values (empty and short ones are skipped, see MIN_SECRET_LENGTH). */
  static of(secretValues: Iterable<string>): Redactor {
    const patterns: string[] = [];
    for (const v of secretValues) patterns.push(...secretForms(v));
    return patterns.length === 0 ? Redactor.none : new Redactor(patterns);
  }

  /** The patterns this redactor looks for (every form of every secret). */
  get forms(): readonly string[] {
    return this.patterns;
  }

  get isEmpty(): boolean {
    return this.patterns.length === 0;
  }

  /**
   * The text with every occurrence of a secret replaced. `bounded`: the text was cut from something longer
   * (a stderr tail, a truncated body), so a secret cut in half at its start or end is redacted too.
   */
  text(s: string, opts: { bounded?: boolean } = {}): string {
    if (!this.regex || s.length < MIN_SECRET_LENGTH) return s;
    const whole = s.replace(this.regex, REDACTED);
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
      for (
        let i = s.indexOf(head, Math.max(0, s.length - p.length + 1));
        i !== -1 && i <= s.length - MIN_FRAGMENT_LENGTH;
        i = s.indexOf(head, i + 1)
      ) {
        if (p.startsWith(s.slice(i))) {
          end = Math.min(end, i);
          break;
        }
      }
      // Tail of p at the start of s.
      const tail = p.slice(-MIN_FRAGMENT_LENGTH);
      const limit = Math.min(s.length, p.length - 1);
      for (
        let j = s.lastIndexOf(tail, limit - MIN_FRAGMENT_LENGTH);
        j !== -1;
        j = j === 0 ? -1 : s.lastIndexOf(tail, j - 1)
      ) {
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
 * of them. Setting a scope again replaces its values (a changed key or a refreshed OAuth token); the index is
 * updated by scope, so thousands of instances loading one after another cost no rebuild.
 */
export class SecretRegistry {
  private readonly scopes = new Map<string, Redactor>();
  private readonly index = new PatternIndex();

  /** Records a scope's secret values and returns its redactor. */
  set(scope: string, secretValues: Iterable<string>): Redactor {
    const redactor = Redactor.of(secretValues);
    const before = this.scopes.get(scope);
    if (before) this.index.remove(before.forms);
    if (redactor.isEmpty) this.scopes.delete(scope);
    else {
      this.scopes.set(scope, redactor);
      this.index.add(redactor.forms);
    }
    return redactor;
  }

  forget(scope: string): void {
    const before = this.scopes.get(scope);
    if (!before) return;
    this.scopes.delete(scope);
    this.index.remove(before.forms);
  }

  /** The text without any secret of any scope. */
  text(s: string): string {
    return this.index.replace(s);
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
  // What an SSO failure carries: an OIDC provider's client secret, a SAML response (signed, replayable within its
  // validity) and an ID-JAG or jwt-bearer assertion.
  "*.oidcClientSecret",
  "*.SAMLResponse",
  "*.assertion",
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
export function redactingDestination(
  registry: SecretRegistry,
  write: (line: string) => void,
): { write(line: string): void } {
  return { write: (line: string) => write(registry.text(line)) };
}
